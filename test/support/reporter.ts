// mocha's spec reporter plus one plain closing line, "N passed, N failed, N skipped",
// that CI reads whatever the test runner.
import Mocha = require("mocha");

const { EVENT_RUN_END } = Mocha.Runner.constants;

class SpecWithSummary extends Mocha.reporters.Spec {
  constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
    super(runner, options);
    runner.once(EVENT_RUN_END, () => {
      const s = runner.stats;
      if (!s) return;
      // after the spec reporter's own epilogue
      process.nextTick(() => console.log(`tests: ${s.passes} passed, ${s.failures} failed, ${s.pending} skipped`));
    });
  }
}

export = SpecWithSummary;
