// MariaDB Connector/J (Debian's libmariadb-java) against one server: DatabaseMetaData (getTables,
// getColumns, getPrimaryKeys, getImportedKeys / getExportedKeys, getIndexInfo), transaction
// isolation, savepoints, batch inserts with rewriteBatchedStatements=true, and server-prepared
// batches sent as COM_STMT_BULK_EXECUTE (useBulkStmts=true).
// Usage: java -cp mariadb-java-client.jar:. DriverSuite TARGET HOST PORT USER PASSWORD
import java.sql.*;
import java.util.*;

public class DriverSuite {
    static String target;
    static int failures = 0;

    interface Case { void run() throws Exception; }

    static void check(boolean cond, String what) {
        if (!cond) throw new AssertionError(what);
    }

    static void run(String name, Case c) {
        try {
            c.run();
            System.out.println("PASS: " + target + "/connector-j/" + name);
        } catch (Throwable e) {
            failures++;
            String msg = (e.getClass().getSimpleName() + ": " + e.getMessage()).replaceAll("\\s+", " ");
            if (msg.length() > 400) msg = msg.substring(0, 400);
            System.out.println("FAIL: " + target + "/connector-j/" + name + ": " + msg);
        }
    }

    static long comStmtExecute(Statement s) throws SQLException {
        try (ResultSet rs = s.executeQuery("SHOW GLOBAL STATUS LIKE 'Com_stmt_execute'")) {
            rs.next();
            return rs.getLong(2);
        }
    }

    static List<String> col(ResultSet rs, String name) throws SQLException {
        List<String> out = new ArrayList<>();
        while (rs.next()) out.add(rs.getString(name));
        rs.close();
        return out;
    }

    public static void main(String[] a) throws Exception {
        target = a[0];
        String base = "jdbc:mariadb://" + a[1] + ":" + a[2] + "/";
        String user = a[3], pw = a.length > 4 ? a[4] : "";
        try (Connection c = DriverManager.getConnection(base, user, pw); Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS drv_jdbc");
            s.execute("CREATE DATABASE drv_jdbc");
        }
        String url = base + "drv_jdbc?rewriteBatchedStatements=true&useServerPrepStmts=false";
        try (Connection c = DriverManager.getConnection(url, user, pw)) {
            run("ddl", () -> {
                try (Statement s = c.createStatement()) {
                    s.execute("CREATE TABLE customer (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, name VARCHAR(40) NOT NULL, "
                        + "email VARCHAR(80), balance DECIMAL(10,2) DEFAULT 0.00, UNIQUE KEY uk_email (email), KEY ix_name (name))");
                    s.execute("CREATE TABLE orders (id BIGINT NOT NULL AUTO_INCREMENT, customer_id INT NOT NULL, line INT NOT NULL, "
                        + "note TEXT, created DATETIME, PRIMARY KEY (id, line), "
                        + "CONSTRAINT fk_cust FOREIGN KEY (customer_id) REFERENCES customer (id) ON DELETE CASCADE ON UPDATE RESTRICT)");
                }
            });
            DatabaseMetaData md = c.getMetaData();
            run("metadata/product", () -> {
                check(md.getDatabaseProductName().equals("MariaDB") || md.getDatabaseProductName().equals("MySQL"),
                    "product " + md.getDatabaseProductName());
                check(md.getDatabaseMajorVersion() >= 10, "major version " + md.getDatabaseMajorVersion());
                check(md.supportsSavepoints() && md.supportsTransactions(), "savepoints");
            });
            run("metadata/getTables", () -> {
                List<String> t = col(md.getTables("drv_jdbc", null, "%", new String[] {"TABLE"}), "TABLE_NAME");
                check(t.equals(Arrays.asList("customer", "orders")), "tables " + t);
                List<String> one = col(md.getTables("drv_jdbc", null, "cust%", null), "TABLE_NAME");
                check(one.equals(Arrays.asList("customer")), "pattern " + one);
            });
            run("metadata/getColumns", () -> {
                ResultSet rs = md.getColumns("drv_jdbc", null, "customer", "%");
                List<String> names = new ArrayList<>();
                Map<String, String> info = new HashMap<>();
                while (rs.next()) {
                    String n = rs.getString("COLUMN_NAME");
                    names.add(n);
                    info.put(n, rs.getInt("DATA_TYPE") + "/" + rs.getString("TYPE_NAME") + "/" + rs.getInt("COLUMN_SIZE") + "/"
                        + rs.getInt("NULLABLE") + "/" + rs.getString("IS_AUTOINCREMENT") + "/" + rs.getInt("ORDINAL_POSITION"));
                }
                check(names.equals(Arrays.asList("id", "name", "email", "balance")), "columns " + names);
                check(info.get("id").equals(Types.INTEGER + "/INT/10/0/YES/1"), "id " + info.get("id"));
                check(info.get("name").equals(Types.VARCHAR + "/VARCHAR/40/0/NO/2"), "name " + info.get("name"));
                check(info.get("balance").startsWith(Types.DECIMAL + "/DECIMAL/10/1/NO/4"), "balance " + info.get("balance"));
            });
            run("metadata/getPrimaryKeys", () -> {
                ResultSet rs = md.getPrimaryKeys("drv_jdbc", null, "orders");
                List<String> k = new ArrayList<>();
                while (rs.next()) k.add(rs.getString("COLUMN_NAME") + ":" + rs.getInt("KEY_SEQ"));
                check(k.equals(Arrays.asList("id:1", "line:2")), "orders pk " + k);
            });
            run("metadata/getImportedKeys", () -> {
                ResultSet rs = md.getImportedKeys("drv_jdbc", null, "orders");
                check(rs.next(), "one imported key");
                check(rs.getString("PKTABLE_NAME").equals("customer") && rs.getString("PKCOLUMN_NAME").equals("id")
                    && rs.getString("FKCOLUMN_NAME").equals("customer_id") && rs.getString("FK_NAME").equals("fk_cust"),
                    "imported " + rs.getString("PKTABLE_NAME") + "." + rs.getString("PKCOLUMN_NAME") + " <- " + rs.getString("FKCOLUMN_NAME"));
                check(rs.getInt("DELETE_RULE") == DatabaseMetaData.importedKeyCascade, "delete rule " + rs.getInt("DELETE_RULE"));
                check(rs.getInt("UPDATE_RULE") == DatabaseMetaData.importedKeyRestrict, "update rule " + rs.getInt("UPDATE_RULE"));
                check(!rs.next(), "only one");
            });
            run("metadata/getExportedKeys", () -> {
                ResultSet rs = md.getExportedKeys("drv_jdbc", null, "customer");
                check(rs.next(), "one exported key");
                check(rs.getString("FKTABLE_NAME").equals("orders") && rs.getString("FKCOLUMN_NAME").equals("customer_id"),
                    "exported " + rs.getString("FKTABLE_NAME"));
                check(!rs.next(), "only one");
            });
            run("metadata/getIndexInfo", () -> {
                ResultSet rs = md.getIndexInfo("drv_jdbc", null, "customer", false, false);
                List<String> idx = new ArrayList<>();
                while (rs.next()) idx.add(rs.getString("INDEX_NAME") + ":" + rs.getString("COLUMN_NAME") + ":" + rs.getBoolean("NON_UNIQUE"));
                Collections.sort(idx);
                check(idx.equals(Arrays.asList("PRIMARY:id:false", "ix_name:name:true", "uk_email:email:false")), "indexes " + idx);
                List<String> uniq = col(md.getIndexInfo("drv_jdbc", null, "customer", true, false), "INDEX_NAME");
                Collections.sort(uniq);
                check(uniq.equals(Arrays.asList("PRIMARY", "uk_email")), "unique only " + uniq);
            });
            run("metadata/catalogs-and-more", () -> {
                List<String> cats = col(md.getCatalogs(), "TABLE_CAT");
                check(cats.contains("drv_jdbc") && cats.contains("information_schema"), "catalogs " + cats);
                ResultSet ti = md.getTypeInfo();
                List<String> types = col(ti, "TYPE_NAME");
                check(types.contains("INT") && types.contains("VARCHAR") && types.contains("DECIMAL"), "type info " + types.size());
                check(!md.getProcedures("drv_jdbc", null, "%").next(), "no procedures");
                check(!md.getFunctions("drv_jdbc", null, "%").next(), "no functions");
                ResultSet cr = md.getCrossReference("drv_jdbc", null, "customer", "drv_jdbc", null, "orders");
                check(cr.next() && cr.getString("FK_NAME").equals("fk_cust"), "cross reference");
                List<String> best = col(md.getBestRowIdentifier("drv_jdbc", null, "orders", DatabaseMetaData.bestRowSession, false), "COLUMN_NAME");
                check(best.equals(Arrays.asList("id", "line")), "best row identifier " + best);
                List<String> views = col(md.getTables("drv_jdbc", null, "%", new String[] {"VIEW"}), "TABLE_NAME");
                check(views.isEmpty(), "views " + views);
                check(md.getMaxStatementLength() >= 0 && md.getIdentifierQuoteString().equals("`"), "quote");
                check(md.getUserName().startsWith("root"), "user " + md.getUserName());
            });
            run("batch/rewriteBatchedStatements", () -> {
                c.setAutoCommit(false);
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO customer (name, email, balance) VALUES (?, ?, ?)",
                        Statement.RETURN_GENERATED_KEYS)) {
                    for (int i = 1; i <= 500; i++) {
                        ps.setString(1, "name" + i);
                        ps.setString(2, i % 7 == 0 ? null : "c" + i + "@x.org");
                        ps.setBigDecimal(3, new java.math.BigDecimal(i + ".25"));
                        ps.addBatch();
                    }
                    int[] counts = ps.executeBatch();
                    check(counts.length == 500, "counts " + counts.length);
                    ResultSet keys = ps.getGeneratedKeys();
                    int n = 0;
                    long last = 0;
                    while (keys.next()) { n++; last = keys.getLong(1); }
                    check(n == 500 && last == 500, "generated keys " + n + " last " + last);
                }
                c.commit();
                try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*), SUM(balance), COUNT(email) FROM customer")) {
                    rs.next();
                    check(rs.getInt(1) == 500 && rs.getBigDecimal(2).toString().equals("125375.00") && rs.getInt(3) == 429,
                        "totals " + rs.getInt(1) + " " + rs.getBigDecimal(2) + " " + rs.getInt(3));
                }
                c.setAutoCommit(true);
            });
            run("batch/statement-batch", () -> {
                try (Statement s = c.createStatement()) {
                    s.addBatch("INSERT INTO orders (customer_id, line, note) VALUES (1, 1, 'a')");
                    s.addBatch("INSERT INTO orders (customer_id, line, note) VALUES (1, 2, 'b')");
                    s.addBatch("UPDATE customer SET balance = balance + 1 WHERE id <= 3");
                    int[] r = s.executeBatch();
                    check(Arrays.toString(r).equals("[1, 1, 3]"), "batch counts " + Arrays.toString(r));
                }
            });
            run("isolation", () -> {
                for (int level : new int[] {Connection.TRANSACTION_READ_COMMITTED, Connection.TRANSACTION_SERIALIZABLE,
                        Connection.TRANSACTION_READ_UNCOMMITTED, Connection.TRANSACTION_REPEATABLE_READ}) {
                    c.setTransactionIsolation(level);
                    check(c.getTransactionIsolation() == level, "isolation " + level + " read back " + c.getTransactionIsolation());
                    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT @@tx_isolation")) {
                        rs.next();
                        String want = level == Connection.TRANSACTION_READ_COMMITTED ? "READ-COMMITTED"
                            : level == Connection.TRANSACTION_SERIALIZABLE ? "SERIALIZABLE"
                            : level == Connection.TRANSACTION_READ_UNCOMMITTED ? "READ-UNCOMMITTED" : "REPEATABLE-READ";
                        check(rs.getString(1).equals(want), "@@tx_isolation " + rs.getString(1));
                    }
                }
            });
            run("savepoints", () -> {
                c.setAutoCommit(false);
                try (Statement s = c.createStatement()) {
                    s.executeUpdate("INSERT INTO customer (name) VALUES ('sp-before')");
                    Savepoint sp1 = c.setSavepoint("sp1");
                    s.executeUpdate("INSERT INTO customer (name) VALUES ('sp-rolled-back')");
                    Savepoint sp2 = c.setSavepoint();
                    s.executeUpdate("INSERT INTO customer (name) VALUES ('sp-rolled-back-too')");
                    c.rollback(sp1);
                    s.executeUpdate("INSERT INTO customer (name) VALUES ('sp-after')");
                    Savepoint sp3 = c.setSavepoint("sp3");
                    c.releaseSavepoint(sp3);
                    c.commit();
                    ResultSet rs = s.executeQuery("SELECT name FROM customer WHERE name LIKE 'sp-%' ORDER BY id");
                    List<String> names = col(rs, "name");
                    check(names.equals(Arrays.asList("sp-before", "sp-after")), "after savepoints " + names);
                    try {
                        c.rollback(sp2);
                        throw new AssertionError("rollback to a savepoint of a committed transaction was accepted");
                    } catch (SQLException e) {
                        check(e.getErrorCode() == 1305, "error " + e.getErrorCode() + " " + e.getMessage());
                    }
                }
                c.setAutoCommit(true);
            });
            run("server-prepared", () -> {
                try (Connection c2 = DriverManager.getConnection(base + "drv_jdbc?useServerPrepStmts=true", user, pw);
                     PreparedStatement ps = c2.prepareStatement("SELECT id, name, balance FROM customer WHERE id BETWEEN ? AND ? ORDER BY id")) {
                    ps.setInt(1, 10);
                    ps.setInt(2, 12);
                    ResultSet rs = ps.executeQuery();
                    List<String> got = new ArrayList<>();
                    while (rs.next()) got.add(rs.getInt(1) + ":" + rs.getString(2) + ":" + rs.getBigDecimal(3));
                    check(got.equals(Arrays.asList("10:name10:10.25", "11:name11:11.25", "12:name12:12.25")), "rows " + got);
                    ResultSetMetaData rmd = rs.getMetaData();
                    check(rmd.getColumnCount() == 3 && rmd.getColumnType(3) == Types.DECIMAL && rmd.getTableName(2).equals("customer"),
                        "metadata " + rmd.getColumnType(3) + " " + rmd.getTableName(2));
                }
            });
            run("server-prepared/batch-and-timeout", () -> {
                try (Connection c2 = DriverManager.getConnection(base + "drv_jdbc?useServerPrepStmts=true", user, pw)) {
                    try (PreparedStatement ps = c2.prepareStatement("INSERT INTO customer (name, balance) VALUES (?, ?)",
                            Statement.RETURN_GENERATED_KEYS)) {
                        for (int i = 0; i < 50; i++) {
                            ps.setString(1, "bulk" + i);
                            ps.setBigDecimal(2, new java.math.BigDecimal("0.5"));
                            ps.addBatch();
                        }
                        int[] r = ps.executeBatch();
                        check(r.length == 50, "batch " + r.length);
                    }
                    try (Statement s = c2.createStatement()) {
                        ResultSet rs = s.executeQuery("SELECT COUNT(*), SUM(balance) FROM customer WHERE name LIKE 'bulk%'");
                        rs.next();
                        check(rs.getInt(1) == 50 && rs.getBigDecimal(2).toString().equals("25.00"), "bulk rows " + rs.getInt(1));
                        s.setFetchSize(Integer.MIN_VALUE);
                        rs = s.executeQuery("SELECT id FROM customer ORDER BY id");
                        int n = 0;
                        while (rs.next()) n++;
                        check(n >= 550, "streamed " + n);
                    }
                }
            });
            // useBulkStmts: executeBatch() of a server-prepared INSERT is one COM_STMT_BULK_EXECUTE
            // (Com_stmt_execute moves by one); a duplicate in the middle fails the batch and
            // keeps none of its rows.
            run("server-prepared/useBulkStmts", () -> {
                try (Connection c2 = DriverManager.getConnection(base + "drv_jdbc?useServerPrepStmts=true&useBulkStmts=true", user, pw);
                     Statement s = c2.createStatement()) {
                    s.execute("CREATE TABLE bulk_t (id INT PRIMARY KEY, v VARCHAR(20), d DECIMAL(8,2), at DATETIME)");
                    long before = comStmtExecute(s);
                    try (PreparedStatement ps = c2.prepareStatement("INSERT INTO bulk_t VALUES (?, ?, ?, ?)")) {
                        for (int i = 1; i <= 300; i++) {
                            ps.setInt(1, i);
                            // One type per parameter for the whole batch (a NULL would be
                            // another type, and Connector/J then sends one execute per row).
                            ps.setString(2, i % 5 == 0 ? "" : "v" + i);
                            ps.setBigDecimal(3, new java.math.BigDecimal(i + ".5"));
                            ps.setTimestamp(4, Timestamp.valueOf("2024-01-02 03:04:05"));
                            ps.addBatch();
                        }
                        int[] r = ps.executeBatch();
                        check(r.length == 300, "counts " + r.length);
                    }
                    long sent = comStmtExecute(s) - before;
                    check(sent == 1, "Com_stmt_execute +" + sent + ", want one bulk");
                    try (ResultSet rs = s.executeQuery("SELECT COUNT(*), COUNT(NULLIF(v, '')), SUM(d), MIN(at) FROM bulk_t")) {
                        rs.next();
                        check(rs.getInt(1) == 300 && rs.getInt(2) == 240 && rs.getBigDecimal(3).toString().equals("45300.00")
                            && rs.getString(4).startsWith("2024-01-02 03:04:05"),
                            "rows " + rs.getInt(1) + " " + rs.getInt(2) + " " + rs.getBigDecimal(3) + " " + rs.getString(4));
                    }
                    try (PreparedStatement ps = c2.prepareStatement("INSERT INTO bulk_t (id, v) VALUES (?, ?)")) {
                        for (int id : new int[] {301, 302, 1, 303}) {
                            ps.setInt(1, id);
                            ps.setString(2, "dup");
                            ps.addBatch();
                        }
                        boolean failed = false;
                        try { ps.executeBatch(); } catch (BatchUpdateException e) { failed = e.getErrorCode() == 1062; }
                        check(failed, "duplicate in a batch");
                    }
                    try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM bulk_t WHERE id > 300")) {
                        rs.next();
                        check(rs.getInt(1) == 0, "rows of the failed batch kept: " + rs.getInt(1));
                    }
                }
            });
            // setQueryTimeout: Connector/J sends `SET STATEMENT max_statement_time=N FOR …`.
            boolean setStatement;
            try (Statement s = c.createStatement()) {
                s.execute("SET STATEMENT max_statement_time=30 FOR SELECT 1");
                setStatement = true;
            } catch (SQLException e) {
                setStatement = false;
            }
            if (!setStatement) {
                System.out.println("SKIP: " + target + "/connector-j/setQueryTimeout: the server has no "
                    + "SET STATEMENT … FOR / max_statement_time (Connector/J's query timeout)");
            } else {
                run("setQueryTimeout", () -> {
                    try (Statement s = c.createStatement()) {
                        s.setQueryTimeout(30);
                        ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM customer");
                        check(rs.next() && rs.getInt(1) >= 500, "count");
                        s.setQueryTimeout(1);
                        try {
                            s.executeQuery("SELECT SLEEP(3)").next();
                            // MariaDB ends SLEEP early and returns 1 for it
                        } catch (SQLException e) {
                            check(e.getErrorCode() == 1969 || e instanceof SQLTimeoutException, "timeout " + e.getErrorCode());
                        }
                    }
                });
            }
            run("fk-cascade", () -> {
                try (Statement s = c.createStatement()) {
                    check(s.executeUpdate("DELETE FROM customer WHERE id = 1") == 1, "delete");
                    ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM orders");
                    rs.next();
                    check(rs.getInt(1) == 0, "orders left " + rs.getInt(1));
                    try {
                        s.executeUpdate("INSERT INTO orders (customer_id, line) VALUES (9999, 1)");
                        throw new AssertionError("a missing parent was accepted");
                    } catch (SQLIntegrityConstraintViolationException e) {
                        check(e.getErrorCode() == 1452, "error " + e.getErrorCode());
                    }
                }
            });
        }
        try (Connection c = DriverManager.getConnection(base, user, pw); Statement s = c.createStatement()) {
            s.execute("DROP DATABASE drv_jdbc");
        }
        System.exit(failures == 0 ? 0 : 1);
    }
}
