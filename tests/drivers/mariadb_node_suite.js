// MariaDB Connector/Node.js (npm `mariadb` 3) against one server: execute() (it sends
// COM_STMT_PREPARE and COM_STMT_EXECUTE with statement id -1 together, without waiting), prepare()
// reuse, batch() (one COM_STMT_BULK_EXECUTE), pipelined queries, types,
// RETURNING, transactions, a pool, error codes.
// Usage: node mariadb_node_suite.js TARGET HOST PORT USER PASSWORD (mariadb from NODE_PATH)
const mariadb = require('mariadb');
const [target, host, port, user, password] = process.argv.slice(2);
const { check, J, run, failures } = require('./suitelib')(target, 'mariadb-node');

(async () => {
  const base = { host, port: Number(port), user, password: password || '', bigIntAsNumber: true, insertIdAsNumber: true, decimalAsNumber: false };
  const admin = await mariadb.createConnection(base);
  await admin.query('DROP DATABASE IF EXISTS drv_mariadb_node');
  await admin.query('CREATE DATABASE drv_mariadb_node');
  await admin.end();
  const c = await mariadb.createConnection({ ...base, database: 'drv_mariadb_node' });
  await c.query('CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(20) NOT NULL UNIQUE, amount DECIMAL(8,2), at DATETIME(3), b BLOB)');

  // batch(): one COM_STMT_BULK_EXECUTE on both servers (Com_stmt_execute moves by one).
  const comStmtExecute = async () => Number((await c.query("SHOW GLOBAL STATUS LIKE 'Com_stmt_execute'"))[0].Value);
  await run('batch', async () => {
    const before = await comStmtExecute();
    const r = await c.batch('INSERT INTO t (name, amount, at, b) VALUES (?, ?, ?, ?)', [
      ['a', 1.5, new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 678)), Buffer.from([0, 255])],
      ['b', null, null, null],
      ['c', '99.99', '2024-01-01 00:00:00', Buffer.from('zz')]]);
    const rows = Array.isArray(r) ? r : [r];
    check(rows.reduce((n, x) => n + x.affectedRows, 0) === 3, `batch ${J(r)}`);
    // The connector starts a new bulk where the parameter types change (the NULL row).
    const sent = (await comStmtExecute()) - before;
    check(sent === 2, `Com_stmt_execute +${sent}, want two bulks`);
    const before100 = await comStmtExecute();
    const many = Array.from({ length: 100 }, (_, i) => [`m${i}`, `${i}.25`, '2024-02-03 04:05:06', Buffer.from([i])]);
    const r100 = await c.batch('INSERT INTO t (name, amount, at, b) VALUES (?, ?, ?, ?)', many);
    check((Array.isArray(r100) ? r100 : [r100]).reduce((n, x) => n + x.affectedRows, 0) === 100, `batch of 100 ${J(r100)}`);
    const sent100 = (await comStmtExecute()) - before100;
    check(sent100 === 1, `Com_stmt_execute +${sent100}, want one bulk`);
    const sum = await c.query("SELECT COUNT(*) AS n, SUM(amount) AS s FROM t WHERE name LIKE 'm%'");
    check(Number(sum[0].n) === 100 && String(sum[0].s) === '4975.00', `batch of 100 rows ${J(sum)}`);
    await c.query("DELETE FROM t WHERE name LIKE 'm%'");
    const all = await c.query('SELECT name, amount, at, b FROM t ORDER BY name');
    check(J(all.map((x) => [x.name, x.amount, x.at && x.at.toISOString(), x.b && [...x.b]])) ===
      J([['a', '1.50', '2024-01-02T03:04:05.678Z', [0, 255]], ['b', null, null, null], ['c', '99.99', '2024-01-01T00:00:00.000Z', [122, 122]]]), `rows ${J(all)}`);
  });

  await run('batch-duplicate', async () => {
    let err = null;
    try {
      await c.batch('INSERT INTO t (name) VALUES (?)', [['d1'], ['d2'], ['a'], ['d3']]);
    } catch (e) { err = e; }
    check(err && err.errno === 1062, `duplicate ${err && err.errno}`);
    const kept = await c.query("SELECT COUNT(*) AS n FROM t WHERE name LIKE 'd%'");
    check(Number(kept[0].n) === 0, `rows of the failed batch kept ${J(kept)}`);
  });

  await run('execute', async () => {
    const r1 = await c.execute('SELECT name, amount FROM t WHERE name = ?', ['a']);
    check(r1.length === 1 && r1[0].amount === '1.50', `execute ${J(r1)}`);
    const r2 = await c.execute('SELECT name, amount FROM t WHERE name = ?', ['b']);
    check(r2.length === 1 && r2[0].amount === null, `execute again (cached) ${J(r2)}`);
    const u = await c.execute('UPDATE t SET amount = ? WHERE name = ?', [3, 'b']);
    check(u.affectedRows === 1, `update ${J(u)}`);
    let err = null;
    try { await c.execute('SELECT nope FROM t WHERE id = ?', [1]); } catch (e) { err = e; }
    check(err && err.errno === 1054, `bad column ${err && err.errno}`);
    const r3 = await c.execute('SELECT COUNT(*) AS n FROM t WHERE amount > ?', [2]);
    check(r3[0].n === 2, `after an error ${J(r3)}`);
  });

  await run('prepare-reuse', async () => {
    const want = (await c.query("SELECT id FROM t WHERE name IN ('a', 'b', 'c') ORDER BY name")).map((r) => r.id);
    const p = await c.prepare('SELECT id FROM t WHERE name = ?');
    const ids = [];
    for (const n of ['a', 'b', 'c']) ids.push((await p.execute([n]))[0].id);
    p.close();
    check(J(ids) === J(want) && ids.length === 3, `ids ${J(ids)} want ${J(want)}`);
  });

  await run('pipelined', async () => {
    const rs = await Promise.all([c.query('SELECT 1 AS a'), c.execute('SELECT ? AS b', [2]), c.query('SELECT SLEEP(0.05) AS s'), c.execute('SELECT ? AS d', ['x'])]);
    // String(): MariaDB types a bare `SELECT ?` by the value bound at execute (INT for 2),
    // Cohort keeps the prepare-time VARCHAR (the value is the same)
    check(J(rs.map((r) => String(Object.values(r[0])[0]))) === J(['1', '2', '0', 'x']), `pipelined ${J(rs)}`);
  });

  await run('returning-and-errors', async () => {
    const r = await c.query("INSERT INTO t (name) VALUES ('r') RETURNING id, name");
    check(r.length === 1 && r[0].name === 'r', `returning ${J(r)}`);
    let err = null;
    try { await c.query("INSERT INTO t (name) VALUES ('a')"); } catch (e) { err = e; }
    check(err && err.errno === 1062 && err.sqlState === '23000', `duplicate ${err && err.errno}`);
  });

  await run('transactions-and-pool', async () => {
    await c.beginTransaction();
    await c.query("INSERT INTO t (name) VALUES ('tx')");
    await c.rollback();
    check((await c.query("SELECT COUNT(*) AS n FROM t WHERE name = 'tx'"))[0].n === 0, 'rolled back');
    const pool = mariadb.createPool({ ...base, database: 'drv_mariadb_node', connectionLimit: 3 });
    await Promise.all([...Array(6).keys()].map((i) => pool.execute('INSERT INTO t (name) VALUES (?)', [`p${i}`])));
    const n = (await pool.query("SELECT COUNT(*) AS n FROM t WHERE name LIKE 'p%'"))[0].n;
    await pool.end();
    check(n === 6, `pool ${n}`);
  });

  await c.end();
  process.exit(failures() ? 1 : 0);
})().catch((e) => {
  console.log(`FAIL: ${target}/mariadb-node/setup: ${String(e && (e.stack || e)).split('\n').slice(0, 3).join(' ')}`);
  process.exit(1);
});
