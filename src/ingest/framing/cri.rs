//! CRI pod logs (the kubelet's files under `/var/log/pods`, `kubectl logs`
//! of a containerd or CRI-O node): `TIME STREAM TAG line`, `STREAM` `stdout`
//! or `stderr`, `TAG` `F` for a full line or `P` for a part of a longer one
//! (kubernetes `pkg/kubelet/kuberuntime/logs/logs.go`).

/// A CRI line's words after its time (`stdout F line`, spaces or tabs
/// between them), given its first word `stream` and the text after it:
/// whether it is a partial line (`P`) and the line it carries (one space
/// after the tag taken off). `None` for anything else.
pub(crate) fn after_time<'a>(stream: &str, rest: &'a str) -> Option<(bool, &'a str)> {
    if !matches!(stream, "stdout" | "stderr") {
        return None;
    }
    let (tag, line) = super::timestamp::word(rest);
    matches!(tag, "F" | "P").then(|| (tag == "P", line.strip_prefix(' ').unwrap_or(line)))
}
