//! The budget meter: counts nodes and bytes, watches the clock, polls for interrupts.

use std::time::{Duration, Instant};

use super::{Budget, Limit};
use crate::visited::FingerprintSet;

/// How often budgets and interrupts are checked, in nodes.
pub(super) const CHECK_EVERY: u64 = 1024;
const INTERRUPT_POLL: Duration = Duration::from_millis(100);

pub(super) struct Meter<'a> {
    pub(super) budget: Budget,
    pub(super) start: Instant,
    pub(super) last_poll: Instant,
    pub(super) interrupted: &'a mut dyn FnMut() -> bool,
    pub(super) nodes: u64,
    pub(super) max_depth: u32,
    pub(super) peak_memory: usize,
}

impl<'a> Meter<'a> {
    /// A meter with nothing counted yet, its clock started at `start`.
    pub(super) fn new(budget: Budget, start: Instant, interrupted: &'a mut dyn FnMut() -> bool) -> Meter<'a> {
        Meter { budget, start, last_poll: start, interrupted, nodes: 0, max_depth: 0, peak_memory: 0 }
    }

    /// Counts one expanded node; says which budget, if any, is spent.
    #[inline]
    pub(super) fn tick(&mut self, depth: u32) -> Option<Limit> {
        self.nodes += 1;
        self.max_depth = self.max_depth.max(depth);
        if self.nodes >= self.budget.max_nodes {
            return Some(Limit::Nodes);
        }
        if self.nodes.is_multiple_of(CHECK_EVERY) {
            return self.check();
        }
        None
    }

    /// The time budget and interrupts, as `tick` looks at them every CHECK_EVERY nodes,
    /// for work between nodes: reading entries a store holds already, or checking the
    /// files of a kept proof.
    pub(super) fn check(&mut self) -> Option<Limit> {
        let now = Instant::now();
        if now.duration_since(self.start).as_secs_f64() >= self.budget.max_seconds {
            return Some(Limit::Seconds);
        }
        if now.duration_since(self.last_poll) >= INTERRUPT_POLL {
            self.last_poll = now;
            if (self.interrupted)() {
                return Some(Limit::Interrupted);
            }
        }
        None
    }

    /// Whether making room for `more` fingerprints in `seen` would grow it, and the
    /// growth (as long as its last one foretells) would end past the time budget. A
    /// store of gigabytes takes seconds to grow and the clock is only read between
    /// nodes: such a growth ends the search now, with `Limit::Seconds`, as the deadline
    /// would just after it, without the time or the memory. Every search that stores
    /// positions asks this before it grows its store.
    pub(super) fn no_time_to_grow(&self, seen: &FingerprintSet, more: usize) -> bool {
        seen.must_grow_for(more)
            && self.start.elapsed().as_secs_f64() + seen.growth_seconds() >= self.budget.max_seconds
    }

    pub(super) fn note_memory(&mut self, bytes: usize) {
        self.peak_memory = self.peak_memory.max(bytes);
    }

    pub(super) fn memory(&mut self, bytes: usize) -> Option<Limit> {
        self.peak_memory = self.peak_memory.max(bytes);
        (bytes > self.budget.max_memory).then_some(Limit::Memory)
    }
}

/// Runs `run` on each of `jobs` at once, with its budget: the first on the calling
/// thread, the others on threads of their own. Only the calling thread polls
/// `interrupted` (Ctrl-C comes to one thread), and tells `heard`; the others' meters
/// stop when `stopping` says so. With `listen`, the calling thread, its own job done,
/// goes on hearing Ctrl-C and its budgets (to `heard`) while the others work: for jobs
/// that end at different times. Without, it only waits: for jobs that end together, at
/// a meeting, where a stop heard after the end would stop a search already done.
/// Gives each job's result, in `jobs`' order.
pub(super) fn on_threads<J: Send, W: Send>(
    jobs: Vec<(J, Budget)>,
    start: Instant,
    interrupted: &mut dyn FnMut() -> bool,
    stopping: &(dyn Fn() -> bool + Sync),
    heard: &(dyn Fn(Limit) + Sync),
    listen: bool,
    run: &(impl Fn(J, &mut Meter) -> W + Sync),
) -> Vec<W> {
    let mut jobs = jobs.into_iter();
    let (first, first_budget) = jobs.next().unwrap_or_else(|| unreachable!("a job at least"));
    std::thread::scope(|scope| {
        let caller = std::thread::current();
        let handles: Vec<_> = jobs
            .map(|(job, budget)| {
                let caller = caller.clone();
                scope.spawn(move || {
                    let mut stopped = || stopping();
                    let mut meter = Meter::new(budget, start, &mut stopped);
                    let done = run(job, &mut meter);
                    caller.unpark();
                    done
                })
            })
            .collect();
        let mut polled = || {
            if stopping() {
                return true;
            }
            let now = interrupted();
            if now {
                heard(Limit::Interrupted);
            }
            now
        };
        let mut own = Meter::new(first_budget, start, &mut polled);
        let mut done = vec![run(first, &mut own)];
        while listen && !handles.iter().all(|h| h.is_finished()) {
            if let Some(limit) = own.check() {
                heard(limit);
            }
            // Woken as soon as a thread finishes; the time-out is for Ctrl-C.
            std::thread::park_timeout(Duration::from_millis(20));
        }
        done.extend(handles.into_iter().map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))));
        done
    })
}
