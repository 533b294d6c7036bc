<?php
// What the PHP driver suites share: PASS/FAIL lines named TARGET/LIB/CASE (run.sh counts them),
// a check that throws, and JSON for messages. A suite sets $target and $suite_lib, then
// `require __DIR__ . '/suitelib.php';` and ends with `exit($failures ? 1 : 0);`.
$failures = 0;

function check($cond, $what) {
    if (!$cond) throw new Exception($what);
}
function run($name, $fn) {
    global $target, $suite_lib, $failures;
    try {
        $fn();
        echo "PASS: $target/$suite_lib/$name\n";
    } catch (Throwable $e) {
        $failures++;
        $msg = substr(str_replace("\n", ' ', get_class($e) . ': ' . $e->getMessage() . ' at line ' . $e->getLine()), 0, 600);
        echo "FAIL: $target/$suite_lib/$name: $msg\n";
    }
}
function j($v) { return json_encode($v); }
