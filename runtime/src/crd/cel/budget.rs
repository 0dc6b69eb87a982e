//! The runtime cost limits of one write's rules, as kube-apiserver applies them: an
//! evaluation stops past the per-call limit, and the rules' evaluations together past
//! the request's budget, each with an error that ends the validation of rules.
//!
//! Counting costs means evaluating with [`super::cost`]'s tracker, slower than the
//! interpreter alone. So a write is first walked with the interpreter, summing the
//! estimated costs of what it evaluates (no evaluation costs more than its estimate),
//! and walked again counting only when that sum says a limit could be reached.

use super::cost::Tracker;

/// The apiserver's limits on the runtime cost of a write's rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CostLimits {
    /// The most one evaluation may cost (`celconfig.PerCallLimit`).
    pub per_call: u64,
    /// The most all of a write's evaluations may cost together
    /// (`celconfig.RuntimeCELCostBudget`).
    pub budget: u64,
}

impl Default for CostLimits {
    fn default() -> CostLimits {
        CostLimits {
            per_call: crdgen_apimachinery::cel::PER_CALL_LIMIT,
            budget: crdgen_apimachinery::cel::RUNTIME_COST_BUDGET,
        }
    }
}

/// One walk's account.
pub(super) struct Budget {
    limits: CostLimits,
    counting: bool,
    /// Counting: the cost so far; else the estimates of what ran, summed.
    spent: u64,
    /// Nothing more is to be evaluated: counting, a limit was reached; else one could
    /// be, and the walk is to be done again, counting.
    over: bool,
}

impl Budget {
    /// An account of estimates, for a walk with the interpreter alone.
    pub fn estimating(limits: CostLimits) -> Budget {
        Budget {
            limits,
            counting: false,
            spent: 0,
            over: false,
        }
    }

    /// An account of costs as they are counted.
    pub fn counting(limits: CostLimits) -> Budget {
        Budget {
            counting: true,
            ..Budget::estimating(limits)
        }
    }

    pub fn counts(&self) -> bool {
        self.counting
    }

    pub fn is_over(&self) -> bool {
        self.over
    }

    /// Counting: the cost spent, or one more than the budget once it ran out (the
    /// apiserver's remaining budget of -1).
    pub fn spent(&self) -> u64 {
        match self.over {
            true => self.limits.budget.saturating_add(1),
            false => self.spent,
        }
    }

    /// Whether any budget is left before a node's rules run (counting): the apiserver
    /// refuses to start on none.
    pub fn has_left(&self) -> bool {
        !self.counting || self.spent < self.limits.budget
    }

    /// Records an evaluation estimated at `estimate` (not counting); false when a limit
    /// could be reached, which ends the walk.
    pub fn estimate(&mut self, estimate: u64) -> bool {
        self.spent = self.spent.saturating_add(estimate);
        if estimate > self.limits.per_call || self.spent > self.limits.budget {
            self.over = true;
        }
        !self.over
    }

    /// A tracker for one evaluation.
    pub fn tracker(&self) -> Tracker {
        Tracker::new(self.limits.per_call)
    }

    /// Records a counted evaluation; false when it ran past the budget, which ends the
    /// walk.
    pub fn spend(&mut self, cost: u64) -> bool {
        if cost > self.limits.budget - self.spent {
            self.over = true;
            return false;
        }
        self.spent += cost;
        true
    }

    /// Ends the walk: an evaluation went past the per-call limit, or no budget is left.
    pub fn stop(&mut self) {
        self.over = true;
    }
}
