// mocha's spec reporter plus one plain closing line, "N passed, N failed, N skipped",
// that CI reads whatever the test runner. Under npm test (suite.ts, KVM_TEST_STATS set) the
// counts go to that file instead, and the suite prints one line for all its phases.
import * as fs from "fs";
import Mocha = require("mocha");

const { EVENT_RUN_END } = Mocha.Runner.constants;

class SpecWithSummary extends Mocha.reporters.Spec {
  constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
    super(runner, options);
    runner.once(EVENT_RUN_END, () => {
      const s = runner.stats;
      if (!s) return;
      const statsFile = process.env.KVM_TEST_STATS;
      if (statsFile) return fs.appendFileSync(statsFile, JSON.stringify({ passes: s.passes, failures: s.failures, pending: s.pending }) + "\n");
      // after the spec reporter's own epilogue
      process.nextTick(() => console.log(`tests: ${s.passes} passed, ${s.failures} failed, ${s.pending} skipped`));
    });
  }
}

export = SpecWithSummary;
