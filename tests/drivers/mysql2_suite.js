// node mysql2 against one server: multipleStatements (several result sets; an error in the
// middle stops the batch), prepared statements (execute: binary protocol, statement reuse, NULLs,
// dates, decimals), transactions (commit, rollback), a pool; the OK packet as mysql2 reads it
// with CLIENT_SESSION_TRACK (info, changedRows, serverStatus, stateChanges) and JSON columns
// decoded through MariaDB's extended column metadata.
// Usage: node mysql2_suite.js TARGET HOST PORT USER PASSWORD (mysql2 resolved from NODE_PATH)
const mysql = require('mysql2/promise');
const [target, host, port, user, password] = process.argv.slice(2);
const { check, J, run, failures } = require('./suitelib')(target, 'mysql2');

(async () => {
  const base = { host, port: Number(port), user, password: password || '' };
  const admin = await mysql.createConnection(base);
  await admin.query('DROP DATABASE IF EXISTS drv_mysql2');
  await admin.query('CREATE DATABASE drv_mysql2');
  await admin.end();
  const c = await mysql.createConnection({ ...base, database: 'drv_mysql2', multipleStatements: true, dateStrings: false, supportBigNumbers: true, bigNumberStrings: true });

  await run('multi/result-sets', async () => {
    const [res] = await c.query(
      'CREATE TABLE t (id INT PRIMARY KEY AUTO_INCREMENT, name VARCHAR(20), amount DECIMAL(8,2), at DATETIME);' +
      "INSERT INTO t (name, amount, at) VALUES ('a', 1.50, '2024-01-02 03:04:05'), ('b', NULL, NULL);" +
      'SELECT id, name FROM t ORDER BY id; SELECT COUNT(*) AS n FROM t; UPDATE t SET name = UPPER(name)');
    check(Array.isArray(res) && res.length === 5, `5 results, got ${res.length}`);
    check(res[0].constructor.name === 'ResultSetHeader', 'first is an OK packet');
    check(res[1].affectedRows === 2 && res[1].insertId === 1, `insert ${JSON.stringify(res[1])}`);
    check(JSON.stringify(res[2]) === '[{"id":1,"name":"a"},{"id":2,"name":"b"}]', `select ${JSON.stringify(res[2])}`);
    check(Number(res[3][0].n) === 2, `count ${JSON.stringify(res[3])}`);
    check(res[4].affectedRows === 2 && res[4].changedRows === 2, `update ${JSON.stringify(res[4])}`);
  });

  await run('multi/error-in-the-middle', async () => {
    let err = null;
    try {
      await c.query("INSERT INTO t (name) VALUES ('c'); SELECT * FROM no_such_table; INSERT INTO t (name) VALUES ('d')");
    } catch (e) {
      err = e;
    }
    check(err && err.errno === 1146 && err.sqlState === '42S02', `error ${err && err.errno} ${err && err.message}`);
    const [rows] = await c.query("SELECT name FROM t WHERE name IN ('c', 'd') ORDER BY name");
    check(JSON.stringify(rows) === '[{"name":"c"}]', `the statements before ran, not after: ${JSON.stringify(rows)}`);
    const [again] = await c.query('SELECT 1 AS one; SELECT 2 AS two');
    check(again[0][0].one === 1 && again[1][0].two === 2, 'the connection still works');
  });

  await run('prepared/execute', async () => {
    const [r1] = await c.execute('SELECT id, name, amount, at FROM t WHERE id = ?', [1]);
    check(r1.length === 1 && r1[0].name === 'A' && r1[0].amount === '1.50', `row ${JSON.stringify(r1)}`);
    check(r1[0].at instanceof Date && r1[0].at.getFullYear() === 2024, `datetime ${r1[0].at}`);
    const [r2] = await c.execute('SELECT id, amount FROM t WHERE id = ?', [2]);
    check(r2[0].amount === null, 'NULL decimal');
    const [ins] = await c.execute('INSERT INTO t (name, amount, at) VALUES (?, ?, ?)', ['e', '12.34', new Date(Date.UTC(2020, 5, 6, 7, 8, 9))]);
    check(ins.affectedRows === 1 && ins.insertId > 2, `insert ${JSON.stringify(ins)}`);
    const [r3] = await c.execute('SELECT name, amount FROM t WHERE id = ?', [ins.insertId]);
    check(r3[0].name === 'e' && r3[0].amount === '12.34', `inserted ${JSON.stringify(r3)}`);
    const [r4] = await c.execute('SELECT COUNT(*) AS n FROM t WHERE name LIKE ? AND (amount > ? OR amount IS NULL)', ['%', 0]);
    check(Number(r4[0].n) === 4, `count ${JSON.stringify(r4)}`);
    const [upd] = await c.execute('UPDATE t SET amount = ? WHERE id = ?', [null, ins.insertId]);
    check(upd.affectedRows === 1, 'update');
    let err = null;
    try { await c.execute('SELECT * FROM t WHERE nosuch = ?', [1]); } catch (e) { err = e; }
    check(err && err.errno === 1054, `prepare error ${err && err.errno}`);
  });

  await run('transactions', async () => {
    await c.beginTransaction();
    await c.execute('INSERT INTO t (name) VALUES (?)', ['tx-rolled-back']);
    await c.rollback();
    await c.beginTransaction();
    await c.execute('INSERT INTO t (name) VALUES (?)', ['tx-committed']);
    await c.query('SAVEPOINT s1');
    await c.execute('INSERT INTO t (name) VALUES (?)', ['tx-savepoint']);
    await c.query('ROLLBACK TO SAVEPOINT s1');
    await c.commit();
    const [rows] = await c.query("SELECT name FROM t WHERE name LIKE 'tx-%'");
    check(JSON.stringify(rows) === '[{"name":"tx-committed"}]', `rows ${JSON.stringify(rows)}`);
  });

  await run('prepared/after-alter-and-misc', async () => {
    const [a1] = await c.execute('SELECT * FROM t WHERE id = ?', [1]);
    check(Object.keys(a1[0]).length === 4, 'four columns');
    await c.query('ALTER TABLE t ADD COLUMN extra INT DEFAULT 5');
    const [a2] = await c.execute('SELECT * FROM t WHERE id = ?', [1]);
    check(Object.keys(a2[0]).length === 5 && a2[0].extra === 5, `after ALTER ${JSON.stringify(a2[0])}`);
    await c.ping();
    await c.changeUser({ database: 'drv_mysql2' });
    const [r] = await c.query({ sql: 'SELECT id, name FROM t WHERE id = :id', namedPlaceholders: true, rowsAsArray: true }, { id: 1 });
    check(JSON.stringify(r) === '[[1,"A"]]', `rowsAsArray ${JSON.stringify(r)}`);
    const [big] = await c.query('SELECT 18446744073709551615 AS u, 9007199254740993 AS b, CAST(1.5 AS DECIMAL(5,2)) AS d');
    check(String(big[0].u) === '18446744073709551615' && String(big[0].b) === '9007199254740993', `big numbers ${JSON.stringify(big)}`);
    const [m] = await c.query("SELECT 'ü€😀' AS s, X'00ff' AS b");
    check(m[0].s === 'ü€😀' && Buffer.compare(m[0].b, Buffer.from([0, 255])) === 0, 'utf8mb4 and binary');
  });

  await run('ok-packet/session-track', async () => {
    // mysql2 reads the info as a length-encoded string only with CLIENT_SESSION_TRACK.
    await c.query('CREATE TABLE ok_t (id INT PRIMARY KEY, v INT)');
    const [ins] = await c.query('INSERT INTO ok_t VALUES (1, 1), (2, 2), (3, 3)');
    check(ins.info === 'Records: 3  Duplicates: 0  Warnings: 0', `insert info ${JSON.stringify(ins.info)}`);
    const [upd] = await c.query('UPDATE ok_t SET v = 2 WHERE id <= 2');
    check(upd.info === 'Rows matched: 2  Changed: 1  Warnings: 0', `update info ${JSON.stringify(upd.info)}`);
    check(upd.changedRows === 1, `update ${JSON.stringify(upd)}`);
    check(upd.serverStatus === 2, `autocommit status ${upd.serverStatus}`);
    const [ac] = await c.query('SET autocommit = 0');
    check(ac.serverStatus === 0x4000, `state changed, autocommit off: ${ac.serverStatus}`);
    check(ac.stateChanges && ac.stateChanges.systemVariables.autocommit === 'OFF', `autocommit change ${JSON.stringify(ac.stateChanges)}`);
    const [on] = await c.query('SET autocommit = 1');
    check(on.stateChanges.systemVariables.autocommit === 'ON' && on.serverStatus === 0x4002, `autocommit on ${JSON.stringify(on)}`);
    const [tz] = await c.query("SET time_zone = '+01:00', sql_mode = ''");
    check(JSON.stringify(tz.stateChanges.systemVariables) === '{"time_zone":"+01:00"}', `time_zone ${JSON.stringify(tz.stateChanges)}`);
    const [use] = await c.query('USE drv_mysql2');
    check(use.stateChanges && use.stateChanges.schema === 'drv_mysql2' && use.stateChanges.trackStateChange === null, `schema ${JSON.stringify(use.stateChanges)}`);
    await c.query('SET session_track_state_change = ON');
    const [uv] = await c.query('SET @a = 1');
    // (mysql2 reads the entry's "1" as a length-encoded string: it shows '' rather than null.)
    check(uv.stateChanges && typeof uv.stateChanges.trackStateChange === 'string', `state change ${JSON.stringify(uv.stateChanges)}`);
    await c.query('SET session_track_state_change = OFF');
    const [plain] = await c.query('SET @b = 2');
    check(plain.stateChanges === undefined && plain.serverStatus === 2, `nothing tracked ${JSON.stringify(plain)}`);
    const [[tracked]] = await c.query('SELECT @@session_track_system_variables AS v, @@session_track_schema AS s');
    check(tracked.v === 'autocommit,character_set_client,character_set_connection,character_set_results,time_zone' && Number(tracked.s) === 1, `defaults ${JSON.stringify(tracked)}`);
    await c.query('DROP TABLE ok_t');
  });

  await run('json/extended-metadata', async () => {
    // MariaDB's JSON is LONGTEXT with CHECK (json_valid(j)); mysql2 asks for the extended
    // metadata and parses columns whose format is "json".
    await c.query('CREATE TABLE js (id INT PRIMARY KEY, j JSON, l LONGTEXT)');
    await c.query(`INSERT INTO js VALUES (1, '{"a": [1, 2]}', '{"a": 1}')`);
    const [rows, fields] = await c.query('SELECT id, j, l FROM js');
    check(fields[1].extendedFormat === 'json' && fields[2].extendedFormat === undefined, `formats ${fields.map((f) => f.extendedFormat)}`);
    check(JSON.stringify(rows[0].j) === '{"a":[1,2]}' && rows[0].l === '{"a": 1}', `text ${JSON.stringify(rows)}`);
    const [brows] = await c.execute('SELECT j FROM js WHERE id = ?', [1]);
    check(JSON.stringify(brows[0].j) === '{"a":[1,2]}', `binary ${JSON.stringify(brows)}`);
    // JSON functions that return a document are marked too (JSON_KEYS is not, as in MariaDB).
    const [[f]] = await c.query("SELECT JSON_OBJECT('k', JSON_ARRAY(1)) AS o, JSON_EXTRACT(j, '$.a') AS e, JSON_KEYS(j) AS ks, JSON_UNQUOTE('\"x\"') AS u FROM js");
    check(JSON.stringify(f) === '{"o":{"k":[1]},"e":[1,2],"ks":"[\\"a\\"]","u":"x"}', `functions ${JSON.stringify(f)}`);
    await c.query('DROP TABLE js');
  });

  await run('pool', async () => {
    const pool = mysql.createPool({ ...base, database: 'drv_mysql2', connectionLimit: 4 });
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => pool.execute('SELECT ? + 1 AS v', [i])));
    check(results.every(([rows], i) => Number(rows[0].v) === i + 1), 'pool results');
    await pool.end();
  });

  await c.query('DROP DATABASE drv_mysql2');
  await c.end();
  process.exit(failures() ? 1 : 0);
})().catch((e) => {
  console.log(`FAIL: ${target}/mysql2/setup: ${e.message}`);
  process.exit(1);
});
