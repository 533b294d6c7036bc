<?php
// PHP's two MySQL APIs (both over mysqlnd, Debian's php-mysql) against one server, as a PHP
// application uses them: PDO_mysql with emulated and with native (server-side, binary protocol)
// prepares, and mysqli (prepare / bind_param / get_result and bind_result, multi_query,
// transactions with savepoints, insert_id, affected_rows, error codes), fetching every column type
// with its PHP type, a schema with FKs, joins, and information_schema introspection as a schema
// tool (Doctrine DBAL, Laravel's schema builder) reads it.
// Usage: php php_suite.php TARGET HOST PORT USER PASSWORD
[$_, $target, $host, $port, $user, $password] = $argv + [5 => ''];
$port = (int)$port;
$suite_lib = 'php';
require __DIR__ . '/suitelib.php';

mysqli_report(MYSQLI_REPORT_ERROR | MYSQLI_REPORT_STRICT);
$dsn = "mysql:host=$host;port=$port;charset=utf8mb4";
$pdo0 = new PDO($dsn, $user, $password, [PDO::ATTR_ERRMODE => PDO::ERRMODE_EXCEPTION]);
$pdo0->exec('DROP DATABASE IF EXISTS drv_php');
$pdo0->exec('CREATE DATABASE drv_php');
$pdo0 = null;

function pdo($emulate) {
    global $dsn, $user, $password;
    return new PDO("$dsn;dbname=drv_php", $user, $password, [
        PDO::ATTR_ERRMODE => PDO::ERRMODE_EXCEPTION,
        PDO::ATTR_EMULATE_PREPARES => $emulate,
        PDO::ATTR_DEFAULT_FETCH_MODE => PDO::FETCH_ASSOC,
        PDO::ATTR_STRINGIFY_FETCHES => false,
    ]);
}

const TYPES_DDL = "CREATE TABLE types (
  id INT AUTO_INCREMENT PRIMARY KEY, ti TINYINT, si SMALLINT UNSIGNED, mi MEDIUMINT, bi BIGINT,
  ub BIGINT UNSIGNED, bo BOOLEAN, de DECIMAL(12,4), fl FLOAT, do DOUBLE, ch CHAR(3), vc VARCHAR(20),
  tx TEXT, bl BLOB, vb VARBINARY(8), da DATE, dt DATETIME, dt6 DATETIME(6), ts TIMESTAMP NULL,
  tm TIME, yr YEAR, en ENUM('a','b'), st SET('x','y'), bt BIT(5), js JSON)";
const TYPES_ROW = "INSERT INTO types VALUES (NULL, -5, 65535, -8388608, -9223372036854775808,
  18446744073709551615, TRUE, -12345678.1234, 1.5, -2.25, 'abc', 'héllo', 'long text', x'00ff10',
  x'6162', '2024-02-29', '2024-01-02 03:04:05', '2024-01-02 03:04:05.123456', '2024-03-04 05:06:07',
  '-838:59:59', 2024, 'b', 'x,y', b'10101', '{\"k\": [1, 2]}'), (NULL, NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL)";
// What PHP gives for row 1: mysqlnd's text protocol with ATTR_STRINGIFY_FETCHES off / native
// (binary protocol) prepares convert integers and floats; DECIMAL, dates, BIT stay strings or bytes.
$expectText = ['id' => 1, 'ti' => -5, 'si' => 65535, 'mi' => -8388608, 'bi' => -9223372036854775807 - 1,
    'ub' => '18446744073709551615', 'bo' => 1, 'de' => '-12345678.1234', 'fl' => 1.5, 'do' => -2.25,
    'ch' => 'abc', 'vc' => 'héllo', 'tx' => 'long text', 'bl' => "\x00\xff\x10", 'vb' => 'ab',
    'da' => '2024-02-29', 'dt' => '2024-01-02 03:04:05', 'dt6' => '2024-01-02 03:04:05.123456',
    'ts' => '2024-03-04 05:06:07', 'tm' => '-838:59:59', 'yr' => '2024', 'en' => 'b', 'st' => 'x,y',
    'bt' => 21, 'js' => '{"k": [1, 2]}'];

run('pdo/types-emulated', function () use ($expectText) {
    $db = pdo(true);
    $db->exec(TYPES_DDL);
    check($db->exec(TYPES_ROW) === 2, 'two rows');
    $rows = $db->query('SELECT * FROM types ORDER BY id')->fetchAll();
    foreach ($expectText as $k => $v) {
        check($rows[0][$k] === $v, "$k: got " . var_export($rows[0][$k], true) . ' want ' . var_export($v, true));
    }
    check(count(array_filter($rows[1], fn($v) => $v !== null)) === 1, 'row 2 all NULL but id: ' . j($rows[1]));
    $meta = $db->query('SELECT id, de, vc, dt FROM types LIMIT 1')->getColumnMeta(1);
    check($meta['native_type'] === 'NEWDECIMAL' && $meta['precision'] === 4 && $meta['table'] === 'types', 'meta ' . j($meta));
});

run('pdo/types-native', function () use ($expectText) {
    $db = pdo(false);
    $st = $db->prepare('SELECT * FROM types WHERE id = ?');
    $st->execute([1]);
    $row = $st->fetch();
    foreach ($expectText as $k => $v) {
        check($row[$k] === $v, "$k: got " . var_export($row[$k], true) . ' want ' . var_export($v, true));
    }
    $st->execute([2]);
    $row = $st->fetch();
    check($row['bi'] === null && $row['dt'] === null && $row['id'] === 2, 'NULLs ' . j($row));
    // bound parameters of each type, round trip
    $ins = $db->prepare('INSERT INTO types (ti, bi, de, do, vc, bl, dt, bo) VALUES (:ti, :bi, :de, :do, :vc, :bl, :dt, :bo)');
    $ins->bindValue(':ti', 7, PDO::PARAM_INT);
    $ins->bindValue(':bi', PHP_INT_MAX, PDO::PARAM_INT);
    $ins->bindValue(':de', '3.1416');
    $ins->bindValue(':do', 0.1);
    $ins->bindValue(':vc', "it's \"q\"");
    $ins->bindValue(':bl', "\x00\x01\x02", PDO::PARAM_LOB);
    $ins->bindValue(':dt', '2025-12-31 23:59:59');
    $ins->bindValue(':bo', false, PDO::PARAM_BOOL);
    $ins->execute();
    $id = (int)$db->lastInsertId();
    check($id === 3 && $ins->rowCount() === 1, "lastInsertId $id");
    $r = $db->query("SELECT ti, bi, de, do, vc, bl, dt, bo FROM types WHERE id = $id")->fetch();
    check(j($r) === j(['ti' => 7, 'bi' => PHP_INT_MAX, 'de' => '3.1416', 'do' => 0.1, 'vc' => "it's \"q\"", 'bl' => "\x00\x01\x02", 'dt' => '2025-12-31 23:59:59', 'bo' => 0]), 'round trip ' . j($r));
});

run('pdo/schema-fks-joins', function () {
    $db = pdo(false);
    $db->exec('CREATE TABLE customers (id INT UNSIGNED AUTO_INCREMENT PRIMARY KEY, name VARCHAR(50) NOT NULL, email VARCHAR(100) NOT NULL, UNIQUE KEY customers_email_unique (email)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci');
    $db->exec('CREATE TABLE orders (id BIGINT UNSIGNED AUTO_INCREMENT PRIMARY KEY, customer_id INT UNSIGNED NOT NULL, total DECIMAL(10,2) NOT NULL DEFAULT 0, created_at TIMESTAMP NULL DEFAULT NULL, KEY orders_customer_id_index (customer_id), CONSTRAINT orders_customer_id_foreign FOREIGN KEY (customer_id) REFERENCES customers (id) ON DELETE CASCADE) ENGINE=InnoDB');
    $db->exec('CREATE TABLE order_items (order_id BIGINT UNSIGNED NOT NULL, sku VARCHAR(20) NOT NULL, qty INT NOT NULL, PRIMARY KEY (order_id, sku), CONSTRAINT order_items_order_id_foreign FOREIGN KEY (order_id) REFERENCES orders (id) ON DELETE CASCADE ON UPDATE CASCADE)');
    $c = $db->prepare('INSERT INTO customers (name, email) VALUES (?, ?)');
    foreach ([['Ann', 'ann@x.org'], ['Bob', 'bob@x.org'], ['Cy', 'cy@x.org']] as $p) $c->execute($p);
    check($db->lastInsertId() === '3', 'lastInsertId ' . $db->lastInsertId());
    $o = $db->prepare('INSERT INTO orders (customer_id, total, created_at) VALUES (?, ?, NOW())');
    $i = $db->prepare('INSERT INTO order_items VALUES (?, ?, ?)');
    foreach ([[1, '10.50', [['A', 1], ['B', 2]]], [1, '5.00', [['A', 3]]], [2, '7.25', [['C', 1]]]] as [$cid, $tot, $items]) {
        $o->execute([$cid, $tot]);
        $oid = $db->lastInsertId();
        foreach ($items as [$sku, $q]) $i->execute([$oid, $sku, $q]);
    }
    $rows = $db->query('SELECT c.name, COUNT(DISTINCT o.id) AS orders, COALESCE(SUM(oi.qty), 0) AS items, COALESCE(SUM(DISTINCT o.total), 0) AS spent
        FROM customers c LEFT JOIN orders o ON o.customer_id = c.id LEFT JOIN order_items oi ON oi.order_id = o.id
        GROUP BY c.id, c.name ORDER BY c.id')->fetchAll(PDO::FETCH_NUM);
    check(j($rows) === j([['Ann', 2, '6', '15.50'], ['Bob', 1, '1', '7.25'], ['Cy', 0, '0', '0.00']]), 'join ' . j($rows));
    try {
        $db->exec('INSERT INTO orders (customer_id) VALUES (99)');
        check(false, 'no FK error');
    } catch (PDOException $e) {
        check($e->getCode() === '23000' && $e->errorInfo[1] === 1452, 'FK ' . j($e->errorInfo));
    }
    try {
        $c->execute(['Dup', 'ann@x.org']);
        check(false, 'no duplicate error');
    } catch (PDOException $e) {
        check($e->errorInfo[1] === 1062 && str_contains($e->getMessage(), "customers_email_unique"), 'dup ' . j($e->errorInfo));
    }
    $db->exec('DELETE FROM customers WHERE id = 1');
    check((int)$db->query('SELECT COUNT(*) FROM order_items')->fetchColumn() === 1, 'cascade through two levels');
    // a named-parameter IN list and LIMIT bound as integers (native prepare)
    $st = $db->prepare('SELECT name FROM customers WHERE id IN (:a, :b) ORDER BY name DESC LIMIT :n');
    $st->bindValue(':a', 2, PDO::PARAM_INT);
    $st->bindValue(':b', 3, PDO::PARAM_INT);
    $st->bindValue(':n', 1, PDO::PARAM_INT);
    $st->execute();
    check($st->fetchAll(PDO::FETCH_COLUMN) === ['Cy'], 'LIMIT ?');
});

run('pdo/transactions', function () {
    $db = pdo(false);
    $db->beginTransaction();
    $db->exec("INSERT INTO customers (name, email) VALUES ('T1', 't1@x.org')");
    check($db->inTransaction(), 'in transaction');
    $db->rollBack();
    check((int)$db->query("SELECT COUNT(*) FROM customers WHERE name = 'T1'")->fetchColumn() === 0, 'rolled back');
    $db->beginTransaction();
    $db->exec("INSERT INTO customers (name, email) VALUES ('T2', 't2@x.org')");
    $db->exec('SAVEPOINT s1');
    $db->exec("INSERT INTO customers (name, email) VALUES ('T3', 't3@x.org')");
    $db->exec('ROLLBACK TO SAVEPOINT s1');
    $db->commit();
    $names = $db->query("SELECT name FROM customers WHERE name LIKE 'T%' ORDER BY name")->fetchAll(PDO::FETCH_COLUMN);
    check($names === ['T2'], 'savepoint ' . j($names));
    $db->exec('SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED');
    check($db->query('SELECT @@tx_isolation')->fetchColumn() === 'READ-COMMITTED', 'isolation');
    $db->beginTransaction();
    $row = $db->query('SELECT id FROM customers WHERE id = 2 FOR UPDATE')->fetch();
    $db->commit();
    check($row['id'] === 2, 'FOR UPDATE');
    // a statement error inside a transaction keeps the transaction (InnoDB semantics)
    $db->beginTransaction();
    $db->exec("INSERT INTO customers (name, email) VALUES ('T4', 't4@x.org')");
    try { $db->exec("INSERT INTO customers (name, email) VALUES ('T5', 't4@x.org')"); } catch (PDOException $e) {}
    $db->commit();
    check((int)$db->query("SELECT COUNT(*) FROM customers WHERE name IN ('T4', 'T5')")->fetchColumn() === 1, 'statement rollback only');
});

run('pdo/multi-rowsets', function () {
    $db = pdo(true);
    $st = $db->query('SELECT 1 AS a; SELECT 2 AS b, 3 AS c');
    $first = $st->fetchAll();
    check($st->nextRowset(), 'second rowset');
    $second = $st->fetchAll();
    check(j([$first, $second]) === j([[['a' => 1]], [['b' => 2, 'c' => 3]]]), 'rowsets ' . j([$first, $second]));
    try {
        $db->exec('CREATE PROCEDURE two_sets(IN n INT) BEGIN SELECT n AS x; SELECT n * 2 AS y; END');
    } catch (PDOException $e) {
        if ($e->errorInfo[1] !== 1235) throw $e;
        global $target;
        echo "SKIP: $target/php/pdo/call-procedure: {$e->errorInfo[2]}\n";
        return;
    }
    $st = $db->prepare('CALL two_sets(?)');
    $st->execute([21]);
    $a = $st->fetchAll();
    $st->nextRowset();
    $b = $st->fetchAll();
    $st->closeCursor();
    check($a[0]['x'] === 21 && $b[0]['y'] === 42, 'CALL ' . j([$a, $b]));
});

run('laravel-default-collation', function () {
    // Laravel's config/database.php default: utf8mb4 / utf8mb4_unicode_ci
    $db = pdo(false);
    try {
        $db->exec('CREATE TABLE uc (name VARCHAR(20)) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci');
    } catch (PDOException $e) {
        if ($e->errorInfo[1] !== 1235) throw $e;
        global $target;
        echo "SKIP: $target/php/utf8mb4_unicode_ci: {$e->errorInfo[2]}\n";
        return;
    }
    $db->exec("INSERT INTO uc VALUES ('Ärger'), ('apfel'), ('Zebra'), ('äpfel')");
    $r = $db->query('SELECT name FROM uc ORDER BY name, BINARY name')->fetchAll(PDO::FETCH_COLUMN);
    check($r === ['apfel', 'äpfel', 'Ärger', 'Zebra'], 'order ' . j($r));
    $db->exec('DROP TABLE uc');
});

run('mysqli/prepared-types', function () use ($host, $user, $password, $port) {
    $m = new mysqli($host, $user, $password, 'drv_php', $port);
    $m->set_charset('utf8mb4');
    $st = $m->prepare('SELECT id, ti, bi, ub, de, fl, do, vc, bl, da, dt6, tm, yr, bt, js FROM types WHERE id = ?');
    $id = 1;
    $st->bind_param('i', $id);
    $st->execute();
    $row = $st->get_result()->fetch_assoc();
    $want = ['id' => 1, 'ti' => -5, 'bi' => -9223372036854775807 - 1, 'ub' => '18446744073709551615', 'de' => '-12345678.1234',
        'fl' => 1.5, 'do' => -2.25, 'vc' => 'héllo', 'bl' => "\x00\xff\x10", 'da' => '2024-02-29', 'dt6' => '2024-01-02 03:04:05.123456',
        'tm' => '-838:59:59', 'yr' => '2024', 'bt' => 21, 'js' => '{"k": [1, 2]}'];
    foreach ($want as $k => $v) {
        check($row[$k] === $v, "$k: got " . var_export($row[$k], true) . ' want ' . var_export($v, true));
    }
    // bind_result (no get_result), a NULL row
    $st2 = $m->prepare('SELECT id, vc, dt FROM types WHERE id >= ? ORDER BY id');
    $from = 2;
    $st2->bind_param('i', $from);
    $st2->execute();
    $st2->bind_result($rid, $rvc, $rdt);
    $seen = [];
    while ($st2->fetch()) $seen[] = [$rid, $rvc, $rdt];
    check(j($seen) === j([[2, null, null], [3, "it's \"q\"", '2025-12-31 23:59:59']]), 'bind_result ' . j($seen));
    $st2->close();
    // parameters: s/d/b (send_long_data)
    $ins = $m->prepare('INSERT INTO types (vc, do, bl) VALUES (?, ?, ?)');
    $vc = 'blob row';
    $dbl = 6.02e23;
    $null = null;
    $ins->bind_param('sdb', $vc, $dbl, $null);
    $ins->send_long_data(2, str_repeat('z', 60000));
    $ins->execute();
    check($ins->insert_id === 4 && $m->insert_id === 4 && $ins->affected_rows === 1, "insert_id {$ins->insert_id}");
    $r = $m->query('SELECT LENGTH(bl) AS n, do FROM types WHERE id = 4')->fetch_assoc();
    check($r['n'] === '60000' && $r['do'] === '6.02e23', 'long data ' . j($r));
    // the text protocol gives strings (no MYSQLI_OPT_INT_AND_FLOAT_NATIVE)
    $t = $m->query('SELECT ti, de, dt FROM types WHERE id = 1')->fetch_row();
    check($t === ['-5', '-12345678.1234', '2024-01-02 03:04:05'], 'text ' . j($t));
    $fields = array_map(fn($f) => [$f->name, $f->orgname, $f->table, $f->orgtable, $f->type, $f->length, $f->decimals], $m->query('SELECT de AS d, vc FROM types t LIMIT 1')->fetch_fields());
    check(j($fields) === j([['d', 'de', 't', 'types', 246, 14, 4], ['vc', 'vc', 't', 'types', 253, 80, 0]]), 'fields ' . j($fields));
    $m->close();
});

run('mysqli/transactions-errors', function () use ($host, $user, $password, $port) {
    $m = new mysqli($host, $user, $password, 'drv_php', $port);
    $m->begin_transaction(MYSQLI_TRANS_START_READ_WRITE);
    $m->query("INSERT INTO customers (name, email) VALUES ('M1', 'm1@x.org')");
    $m->savepoint('sp1');
    $m->query("INSERT INTO customers (name, email) VALUES ('M2', 'm2@x.org')");
    $m->release_savepoint('sp1');
    $m->savepoint('sp2');
    $m->query("INSERT INTO customers (name, email) VALUES ('M3', 'm3@x.org')");
    $m->query('ROLLBACK TO SAVEPOINT sp2');
    $m->commit();
    $r = $m->query("SELECT GROUP_CONCAT(name ORDER BY name) AS g FROM customers WHERE name LIKE 'M%'")->fetch_assoc();
    check($r['g'] === 'M1,M2', 'savepoints ' . j($r));
    $m->autocommit(false);
    $m->query("UPDATE customers SET name = 'X' WHERE id = 2");
    check($m->affected_rows === 1, 'affected');
    $m->rollback();
    $m->autocommit(true);
    check($m->query('SELECT name FROM customers WHERE id = 2')->fetch_row()[0] === 'Bob', 'autocommit off rolled back');
    try {
        $m->query('SELECT * FROM nope');
        check(false, 'no error');
    } catch (mysqli_sql_exception $e) {
        check($e->getCode() === 1146 && $e->getSqlState() === '42S02' && $m->errno === 1146, 'error ' . $e->getCode());
    }
    $m->query("UPDATE customers SET name = name WHERE id = 2");
    check($m->affected_rows === 0 && str_starts_with($m->info, 'Rows matched: 1  Changed: 0'), 'info ' . $m->info);
    $m->query("INSERT INTO customers (name, email) VALUES ('W', 'w@x.org'), ('W2', 'w2@x.org')");
    check($m->info === 'Records: 2  Duplicates: 0  Warnings: 0' && $m->insert_id > 0, 'insert info ' . $m->info);
    $m->query("SELECT CAST('12abc' AS SIGNED)");
    check($m->warning_count === 1, "warning_count {$m->warning_count}");
    $w = $m->get_warnings();
    check($w && $w->errno === 1292, 'warning ' . ($w ? $w->message : 'none'));
    check($m->multi_query('SELECT 1; SELECT 2; SELECT 3'), 'multi_query');
    $vals = [];
    do {
        if ($res = $m->store_result()) { $vals[] = $res->fetch_row()[0]; $res->free(); }
    } while ($m->more_results() && $m->next_result());
    check($vals === ['1', '2', '3'], 'multi ' . j($vals));
    check($m->ping() && $m->server_info !== '' && $m->character_set_name() !== '', 'ping');
    check($m->real_escape_string("a'b\\c") === "a\\'b\\\\c", 'escape');
    $m->close();
});

run('introspection', function () {
    // the information_schema queries of Doctrine DBAL's MySQL schema manager / Laravel's builder
    $db = pdo(false);
    $cols = $db->query("SELECT c.COLUMN_NAME AS field, c.COLUMN_TYPE AS type, c.IS_NULLABLE AS `null`, c.COLUMN_KEY AS `key`,
        c.COLUMN_DEFAULT AS `default`, c.EXTRA, c.COLUMN_COMMENT AS comment, c.CHARACTER_SET_NAME AS characterset, c.COLLATION_NAME AS collation
        FROM information_schema.COLUMNS c INNER JOIN information_schema.TABLES t ON t.TABLE_NAME = c.TABLE_NAME
        WHERE c.TABLE_SCHEMA = 'drv_php' AND t.TABLE_SCHEMA = 'drv_php' AND t.TABLE_TYPE = 'BASE TABLE' AND c.TABLE_NAME = 'orders' ORDER BY ORDINAL_POSITION")->fetchAll(PDO::FETCH_NUM);
    check(j($cols) === j([
        ['id', 'bigint(20) unsigned', 'NO', 'PRI', null, 'auto_increment', '', null, null],
        ['customer_id', 'int(10) unsigned', 'NO', 'MUL', null, '', '', null, null],
        ['total', 'decimal(10,2)', 'NO', '', '0.00', '', '', null, null],
        ['created_at', 'timestamp', 'YES', '', 'NULL', '', '', null, null]]), 'columns ' . j($cols));
    $fks = $db->query("SELECT DISTINCT k.CONSTRAINT_NAME, k.COLUMN_NAME, k.REFERENCED_TABLE_NAME, k.REFERENCED_COLUMN_NAME, k.ORDINAL_POSITION, c.UPDATE_RULE, c.DELETE_RULE
        FROM information_schema.key_column_usage k INNER JOIN information_schema.referential_constraints c ON c.CONSTRAINT_NAME = k.CONSTRAINT_NAME AND c.TABLE_NAME = k.TABLE_NAME
        WHERE k.TABLE_SCHEMA = 'drv_php' AND c.CONSTRAINT_SCHEMA = 'drv_php' AND k.REFERENCED_COLUMN_NAME IS NOT NULL ORDER BY k.TABLE_NAME, k.ORDINAL_POSITION")->fetchAll(PDO::FETCH_NUM);
    check(j($fks) === j([['orders_customer_id_foreign', 'customer_id', 'customers', 'id', 1, 'RESTRICT', 'CASCADE'], ['order_items_order_id_foreign', 'order_id', 'orders', 'id', 1, 'CASCADE', 'CASCADE']]), 'fks ' . j($fks));
    $idx = $db->query("SELECT NON_UNIQUE, INDEX_NAME, COLUMN_NAME, SEQ_IN_INDEX, INDEX_TYPE, SUB_PART, NULLABLE FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = 'drv_php' AND TABLE_NAME = 'order_items' ORDER BY INDEX_NAME, SEQ_IN_INDEX")->fetchAll(PDO::FETCH_NUM);
    check(j($idx) === j([[0, 'PRIMARY', 'order_id', 1, 'BTREE', null, ''], [0, 'PRIMARY', 'sku', 2, 'BTREE', null, '']]), 'indexes ' . j($idx));
    $t = $db->query("SELECT t.ENGINE, t.AUTO_INCREMENT, t.TABLE_COMMENT, t.CREATE_OPTIONS, t.TABLE_COLLATION, ccsa.CHARACTER_SET_NAME
        FROM information_schema.TABLES t INNER JOIN information_schema.COLLATION_CHARACTER_SET_APPLICABILITY ccsa ON ccsa.COLLATION_NAME = t.TABLE_COLLATION
        WHERE t.TABLE_SCHEMA = 'drv_php' AND t.TABLE_NAME = 'customers'")->fetch(PDO::FETCH_NUM);
    check(j($t) === j(['InnoDB', 15, '', '', 'utf8mb4_general_ci', 'utf8mb4']), 'table ' . j($t));
    $show = $db->query('SHOW FULL TABLES WHERE Table_type = \'BASE TABLE\'')->fetchAll(PDO::FETCH_NUM);
    check(count($show) === 4, 'SHOW FULL TABLES ' . j($show));
    $ct = $db->query('SHOW CREATE TABLE order_items')->fetch(PDO::FETCH_NUM)[1];
    check(str_contains($ct, 'CONSTRAINT `order_items_order_id_foreign` FOREIGN KEY (`order_id`) REFERENCES `orders` (`id`) ON DELETE CASCADE ON UPDATE CASCADE'), 'SHOW CREATE TABLE ' . $ct);
    // a Laravel-style migration: change a column, rename one, add an index, drop the FK and index
    $db->exec('ALTER TABLE orders MODIFY total DECIMAL(12,3) NOT NULL DEFAULT 1');
    $db->exec('ALTER TABLE orders CHANGE created_at placed_at DATETIME NULL DEFAULT NULL');
    $db->exec('ALTER TABLE orders ADD status VARCHAR(16) NOT NULL DEFAULT \'new\' AFTER customer_id, ADD INDEX orders_status_index (status)');
    $db->exec('ALTER TABLE orders DROP FOREIGN KEY orders_customer_id_foreign');
    $db->exec('ALTER TABLE orders DROP INDEX orders_customer_id_index');
    $cols = $db->query("SELECT COLUMN_NAME, COLUMN_TYPE, COLUMN_DEFAULT FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'drv_php' AND TABLE_NAME = 'orders' ORDER BY ORDINAL_POSITION")->fetchAll(PDO::FETCH_NUM);
    check(j($cols) === j([['id', 'bigint(20) unsigned', null], ['customer_id', 'int(10) unsigned', null], ['status', 'varchar(16)', "'new'"], ['total', 'decimal(12,3)', '1.000'], ['placed_at', 'datetime', 'NULL']]), 'after migration ' . j($cols));
    $n = (int)$db->query("SELECT COUNT(*) FROM information_schema.TABLE_CONSTRAINTS WHERE TABLE_SCHEMA = 'drv_php' AND TABLE_NAME = 'orders' AND CONSTRAINT_TYPE = 'FOREIGN KEY'")->fetchColumn();
    check($n === 0, "FKs left $n");
});

exit($failures ? 1 : 0);
