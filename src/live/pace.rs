//! Time for the live commands: a clock that can be replaced (tests run a
//! virtual one, so waits for `Retry-After`, backoff and pacing cost no real
//! time and no test depends on the machine's speed), and the pacer that
//! keeps requests under the API's rate limit.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::{Duration, Instant};

pub trait Clock: Send + Sync {
    /// Time since the clock started.
    fn now(&self) -> Duration;
    fn sleep(&self, d: Duration);
}

/// The machine's clock.
pub struct RealClock(Instant);

impl Default for RealClock {
    fn default() -> Self {
        RealClock(Instant::now())
    }
}

impl Clock for RealClock {
    fn now(&self) -> Duration {
        self.0.elapsed()
    }
    fn sleep(&self, d: Duration) {
        std::thread::sleep(d);
    }
}

/// A clock whose time moves only when someone sleeps: every wait is
/// recorded and returns at once.
#[derive(Default)]
pub struct VirtualClock {
    now: Mutex<Duration>,
    sleeps: Mutex<Vec<Duration>>,
}

impl VirtualClock {
    /// Every wait so far, in order.
    pub fn sleeps(&self) -> Vec<Duration> {
        self.sleeps.lock().map(|s| s.clone()).unwrap_or_default()
    }
}

impl Clock for VirtualClock {
    fn now(&self) -> Duration {
        self.now.lock().map(|n| *n).unwrap_or_default()
    }
    fn sleep(&self, d: Duration) {
        if let Ok(mut now) = self.now.lock() {
            *now += d;
        }
        if let Ok(mut sleeps) = self.sleeps.lock() {
            sleeps.push(d);
        }
    }
}

/// The API's window: a number of requests per five minutes.
pub const WINDOW: Duration = Duration::from_secs(300);
/// The API's documented limit: 1,200 requests per five minutes.
pub const DEFAULT_RATE: u32 = 1200;

/// At most `rate` requests in any window of five minutes (0: unpaced).
pub struct Pacer {
    rate: usize,
    sent: VecDeque<Duration>,
}

impl Pacer {
    pub fn new(rate: u32) -> Pacer {
        Pacer {
            rate: rate as usize,
            sent: VecDeque::new(),
        }
    }

    /// Waits, if need be, until one more request keeps within the rate, and counts it.
    pub fn wait(&mut self, clock: &dyn Clock) {
        if self.rate == 0 {
            return;
        }
        self.make_room(clock, 1);
        self.sent.push_back(clock.now());
    }

    /// Waits, if need be, until `n` more requests (at most the rate) keep
    /// within it, so that they can go one after the other with no wait.
    pub fn reserve(&mut self, clock: &dyn Clock, n: usize) {
        if self.rate > 0 {
            self.make_room(clock, n.min(self.rate));
        }
    }

    /// The share of the rate limit the requests of the last five minutes
    /// used (none when unpaced): what a long run shows of the API budget
    /// it takes from the dashboard and the account's other clients.
    pub fn share(&self, clock: &dyn Clock) -> Option<f64> {
        if self.rate == 0 {
            return None;
        }
        let now = clock.now();
        let recent = self.sent.iter().filter(|&&t| now.saturating_sub(t) < WINDOW).count();
        Some(recent as f64 / self.rate as f64)
    }

    fn make_room(&mut self, clock: &dyn Clock, n: usize) {
        let now = clock.now();
        while self.sent.front().is_some_and(|&t| now.saturating_sub(t) >= WINDOW) {
            self.sent.pop_front();
        }
        if self.sent.len() + n > self.rate {
            let until = self.sent.len() + n - self.rate;
            if let Some(&last) = self.sent.get(until - 1) {
                clock.sleep((last + WINDOW).saturating_sub(now));
            }
            self.sent.drain(..until);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_window_of_five_minutes_holds_more_than_the_rate() {
        let clock = VirtualClock::default();
        let mut pacer = Pacer::new(10);
        let mut times = Vec::new();
        for _ in 0..35 {
            pacer.wait(&clock);
            times.push(clock.now());
            clock.sleep(Duration::from_millis(100));
        }
        for (i, &t) in times.iter().enumerate() {
            let in_window = times[i..].iter().take_while(|&&u| u < t + WINDOW).count();
            assert!(in_window <= 10, "{in_window} requests in the window from {t:?}");
        }
        // Three full windows were waited for: 35 requests at 10 a window.
        assert!(clock.now() >= WINDOW * 3, "{:?}", clock.now());
        let unpaced = VirtualClock::default();
        let mut off = Pacer::new(0);
        for _ in 0..100 {
            off.wait(&unpaced);
        }
        assert_eq!(unpaced.now(), Duration::ZERO);
    }

    #[test]
    fn the_share_of_the_rate_limit_counts_the_last_five_minutes() {
        let clock = VirtualClock::default();
        assert_eq!(Pacer::new(0).share(&clock), None);
        let mut pacer = Pacer::new(4);
        pacer.wait(&clock);
        pacer.wait(&clock);
        assert_eq!(pacer.share(&clock), Some(0.5));
        clock.sleep(WINDOW);
        assert_eq!(pacer.share(&clock), Some(0.0));
    }

    #[test]
    fn a_reservation_leaves_no_wait_between_the_requests_it_holds_room_for() {
        let clock = VirtualClock::default();
        let mut pacer = Pacer::new(10);
        for _ in 0..9 {
            pacer.wait(&clock);
        }
        pacer.reserve(&clock, 3);
        let reserved_at = clock.now();
        assert!(reserved_at > Duration::ZERO, "room for three was waited for");
        for _ in 0..3 {
            pacer.wait(&clock);
        }
        assert_eq!(clock.now(), reserved_at, "no wait inside the reservation");
    }
}
