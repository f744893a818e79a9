#!/usr/bin/env python3
"""Two `clickhouse-server` processes on loopback ports and a cluster over them, for the SQL tests.

Usage:
  ch_cluster.py start DIR    starts two servers (data, configs and logs under DIR), waits until both answer, and
                             writes DIR/cluster.json: {"name": "lr", "http": [URL, URL], "pids": [PID, PID]}
  ch_cluster.py stop DIR     stops the servers DIR/cluster.json names (SIGTERM, then SIGKILL after 20 s)

The servers listen on 127.0.0.1 and 127.0.0.2 (both loopback), on the same HTTP and native ports, as a real
cluster's servers do on their own hosts: `fetch --cluster` finds each shard's HTTP interface from the host
`system.clusters` names and the port of the URL it was given. Each server's config names the cluster `lr`
(`remote_servers`: two shards, one replica each), so a `Distributed(lr, db, table, cityHash64(key))` table on either server spreads rows over both by
lock key, and `cluster('lr', db, table)` reads both. Debian's package (18.16) is what CI installs: no window
functions, no `JSONCompactEachRow`, `CASE x WHEN` broken; the rules' ClickHouse query is written for it.

As a module: `Cluster(path_of_cluster_json)` loads a JSON Lines file into a table sharded by key on every
server and runs queries over HTTP (`urllib`, no client library).
"""
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

NAME = "lr"


HOSTS = ["127.0.0.1", "127.0.0.2"]


def free_port():
    """A port free on every host of HOSTS."""
    for _ in range(100):
        with socket.socket() as s:
            s.bind((HOSTS[0], 0))
            port = s.getsockname()[1]
        try:
            for h in HOSTS[1:]:
                with socket.socket() as s:
                    s.bind((h, port))
            return port
        except OSError:
            continue
    sys.exit("no port free on both 127.0.0.1 and 127.0.0.2")


def config(d, host, http, tcp):
    replicas = "".join(
        f"<shard><replica><host>{h}</host><port>{tcp}</port></replica></shard>" for h in HOSTS)
    return (
        '<?xml version="1.0"?>\n<yandex>'
        f"<logger><level>warning</level><log>{d}/server.log</log><errorlog>{d}/err.log</errorlog></logger>"
        f"<http_port>{http}</http_port><tcp_port>{tcp}</tcp_port><listen_host>{host}</listen_host>"
        f"<path>{d}/data/</path><tmp_path>{d}/data/tmp/</tmp_path>"
        f"<user_files_path>{d}/data/user_files/</user_files_path>"
        f"<format_schema_path>{d}/data/format_schemas/</format_schema_path>"
        f"<users_config>{d}/users.xml</users_config>"
        "<default_profile>default</default_profile><default_database>default</default_database>"
        "<mark_cache_size>5368709</mark_cache_size>"
        "<query_log><database>system</database><table>query_log</table>"
        "<flush_interval_milliseconds>1000</flush_interval_milliseconds></query_log>"
        f"<remote_servers><{NAME}>{replicas}</{NAME}></remote_servers></yandex>\n")


USERS = ('<?xml version="1.0"?>\n<yandex><profiles><default></default></profiles>'
         "<users><default><password></password><networks><ip>127.0.0.0/8</ip><ip>::1</ip></networks>"
         "<profile>default</profile><quota>default</quota></default></users>"
         "<quotas><default></default></quotas></yandex>\n")


def http(url, body, params=None, timeout=600):
    """(status, text) of one POST to the HTTP interface."""
    q = "?" + urllib.parse.urlencode(params) if params else ""
    req = urllib.request.Request(url + "/" + q, data=body.encode(), method="POST")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
    except OSError as e:
        return 0, str(e)


def start(d):
    d = os.path.abspath(d)
    http_port, tcp = free_port(), free_port()
    pids, urls = [], []
    for i, host in enumerate(HOSTS):
        sd = os.path.join(d, f"s{i + 1}")
        os.makedirs(sd, exist_ok=True)
        with open(os.path.join(sd, "users.xml"), "w") as f:
            f.write(USERS)
        with open(os.path.join(sd, "config.xml"), "w") as f:
            f.write(config(sd, host, http_port, tcp))
        p = subprocess.Popen(["clickhouse-server", f"--config-file={sd}/config.xml"], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True)
        pids.append(p.pid)
        urls.append(f"http://{host}:{http_port}")
    info = {"name": NAME, "http": urls, "pids": pids}
    with open(os.path.join(d, "cluster.json"), "w") as f:
        json.dump(info, f)
    deadline = time.time() + 90
    for u in urls:
        while http(u, "SELECT 1", timeout=5)[0] != 200:
            if time.time() > deadline:
                stop(d)
                sys.exit(f"clickhouse-server at {u} did not answer within 90 s (logs in {d})")
            time.sleep(0.2)
    # Both shards reachable through the cluster: each answers for itself.
    status, text = http(urls[0], f"SELECT count() FROM cluster('{NAME}', system, one)")
    if status != 200 or text.strip() != "2":
        stop(d)
        sys.exit(f"the cluster {NAME} does not reach both servers: {status} {text.strip()}")
    return os.path.join(d, "cluster.json")


def stop(d):
    path = os.path.join(d, "cluster.json")
    if not os.path.exists(path):
        return
    pids = json.load(open(path))["pids"]
    for pid in pids:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.time() + 20
    for pid in pids:
        while time.time() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.1)
        else:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


class Cluster:
    """The servers of a cluster.json; tables are made in database `default` with unique names."""

    def __init__(self, path):
        info = json.load(open(path))
        self.name, self.urls = info["name"], info["http"]

    def run(self, url, sql, params=None):
        status, text = http(url, sql, params)
        if status != 200:
            raise RuntimeError(f"ClickHouse at {url}: HTTP {status}: {text.strip()[:2000]}")
        return text

    def load(self, path, columns, key="key", order="tuple()", partition=None, batch=200_000):
        """A JSON Lines file as a table sharded by `cityHash64(key)` over the cluster (MergeTree ordered by `order`,
        partitioned by `partition` when given), sent `batch` lines a request;
        returns the local table's name (`default.lr_..._local`; the Distributed one is the same name without
        `_local`)."""
        table = "lr_" + uuid.uuid4().hex[:12]
        cols = ", ".join(f"`{c}` {t}" for c, t in columns)
        for u in self.urls:
            part = f" PARTITION BY {partition}" if partition else ""
            self.run(u, f"CREATE TABLE default.{table}_local ({cols}) ENGINE = MergeTree{part} ORDER BY {order}")
            self.run(u, f"CREATE TABLE default.{table} AS default.{table}_local "
                        f"ENGINE = Distributed({self.name}, default, {table}_local, cityHash64(`{key}`))")
        params = {"insert_distributed_sync": "1", "input_format_skip_unknown_fields": "1"}
        with open(path, encoding="utf-8") as f:
            while True:
                rows = "".join(line for _, line in zip(range(batch), f))
                if not rows:
                    break
                self.run(self.urls[0], f"INSERT INTO default.{table} FORMAT JSONEachRow\n{rows}", params)
        return f"default.{table}_local"

    def drop(self, local):
        for u in self.urls:
            for t in (local, local[: -len("_local")]):
                self.run(u, f"DROP TABLE IF EXISTS {t}")

    def query(self, sql):
        """Rows of a query (`FORMAT JSONCompact`, which 18.16 has), as lists."""
        text = self.run(self.urls[0], sql.rstrip().rstrip(";") + "\nFORMAT JSONCompact")
        return [tuple(r) for r in json.loads(text)["data"]]

    def shard_rows(self, local):
        """Rows of the local table on each server."""
        return [int(self.run(u, f"SELECT count() FROM {local}").strip()) for u in self.urls]


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("start", "stop"):
        sys.exit(__doc__)
    os.makedirs(sys.argv[2], exist_ok=True)
    if sys.argv[1] == "start":
        print(start(sys.argv[2]))
    else:
        stop(sys.argv[2])


if __name__ == "__main__":
    main()
