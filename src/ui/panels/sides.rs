//! How wide the side panels may be: the timeline is what the window is
//! for, so the incident list and Details together never take more than
//! [`SIDES_MAX_FRACTION`] of the window, whatever width was saved or
//! dragged. Pure, so the rule is unit-tested.

/// The largest share of the window's width the two side panels take
/// together.
pub const SIDES_MAX_FRACTION: f32 = 0.38;
/// The left panel's share of [`SIDES_MAX_FRACTION`].
const LEFT_SHARE: f32 = 0.45;
/// The narrowest a side panel can be dragged, points.
pub const SIDE_MIN_W: f32 = 140.0;
/// The left panel's width on a fresh start, if the window allows, points.
const LEFT_WANTED_W: f32 = 420.0;
/// The right panel's width on a fresh start, if the window allows, points.
const RIGHT_WANTED_W: f32 = 320.0;

/// The side panels' default and largest widths for one window width,
/// points.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SideWidths {
    /// The incident list's width on a fresh start.
    pub left_default: f32,
    /// The incident list's largest width.
    pub left_max: f32,
    /// Details' width on a fresh start.
    pub right_default: f32,
    /// Details' largest width.
    pub right_max: f32,
}

impl SideWidths {
    /// The widths for a window `window_w` points wide.
    pub fn for_window(window_w: f32) -> SideWidths {
        let both = (window_w * SIDES_MAX_FRACTION).max(0.0);
        let left_max = (both * LEFT_SHARE).max(SIDE_MIN_W.min(both / 2.0));
        let right_max = (both - left_max).max(0.0);
        SideWidths {
            left_default: LEFT_WANTED_W.min(left_max),
            left_max,
            right_default: RIGHT_WANTED_W.min(right_max),
            right_max,
        }
    }

    /// The narrowest the left panel may be dragged.
    pub fn left_min(&self) -> f32 {
        SIDE_MIN_W.min(self.left_max)
    }

    /// The narrowest the right panel may be dragged.
    pub fn right_min(&self) -> f32 {
        SIDE_MIN_W.min(self.right_max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sides_leave_the_timeline_at_least_60_percent_at_common_sizes() {
        for w in [1024.0, 1280.0, 1366.0, 1600.0, 1920.0, 2560.0, 3840.0] {
            let s = SideWidths::for_window(w);
            let timeline = w - s.left_max - s.right_max;
            assert!(timeline >= 0.6 * w, "{w}: timeline {timeline}");
            assert!(s.left_default <= s.left_max && s.right_default <= s.right_max);
            assert!(s.left_min() <= s.left_max && s.right_min() <= s.right_max);
        }
    }

    #[test]
    fn a_wide_window_gets_the_wanted_widths_and_a_narrow_one_less() {
        let wide = SideWidths::for_window(2560.0);
        assert_eq!(wide.left_default, LEFT_WANTED_W);
        assert_eq!(wide.right_default, RIGHT_WANTED_W);
        let narrow = SideWidths::for_window(1366.0);
        assert!(narrow.left_default < LEFT_WANTED_W);
        assert!(narrow.right_default < RIGHT_WANTED_W);
        assert!(narrow.right_max > SIDE_MIN_W, "{narrow:?}");
    }
}
