// What every node driver suite shares: PASS/FAIL lines named TARGET/LIB/CASE (run.sh counts
// them), a check that throws, and JSON that prints BigInts.
// Usage: const { check, J, run, failures } = require('./suitelib')(target, 'mysql2', detail);
// where detail(e) adds driver-specific context (the failing SQL) to a FAIL line.
module.exports = function suite(target, lib, detail = () => '') {
  let failed = 0;
  return {
    check(cond, what) {
      if (!cond) throw new Error(what);
    },
    J: (v) => JSON.stringify(v, (k, x) => (typeof x === 'bigint' ? x.toString() : x)),
    async run(name, fn) {
      try {
        await fn();
        console.log(`PASS: ${target}/${lib}/${name}`);
      } catch (e) {
        failed++;
        const head = String(e && (e.stack || e)).split('\n').slice(0, 2).join(' ').slice(0, 600);
        console.log(`FAIL: ${target}/${lib}/${name}: ${head}${detail(e).slice(0, 400)}`);
      }
    },
    failures: () => failed,
  };
};
