// Go's database/sql with github.com/go-sql-driver/mysql (Debian's
// golang-github-go-sql-driver-mysql-dev, built in GOPATH mode) against one server: a schema with
// FKs, CRUD through prepared statements (the binary protocol, interpolateParams=false) and through
// client-side interpolation (interpolateParams=true), LastInsertId / RowsAffected, every column
// type scanned into Go types with parseTime, NULLs into sql.Null*, column types (DatabaseTypeName,
// nullability, decimal size), transactions with isolation levels and rollback, a timed-out
// context (the driver drops that connection; the pool goes on), multiStatements, the connection
// pool, error numbers.
// Usage: go run go_sql_driver.go TARGET HOST PORT USER PASSWORD
package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

var target string
var failures int

func check(cond bool, format string, args ...interface{}) {
	if !cond {
		panic(fmt.Sprintf(format, args...))
	}
}

func run(name string, fn func()) {
	defer func() {
		if r := recover(); r != nil {
			failures++
			msg := strings.ReplaceAll(fmt.Sprint(r), "\n", " ")
			if len(msg) > 500 {
				msg = msg[:500]
			}
			fmt.Printf("FAIL: %s/go-mysql/%s: %s\n", target, name, msg)
			return
		}
		fmt.Printf("PASS: %s/go-mysql/%s\n", target, name)
	}()
	fn()
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

func open(host, port, user, password, params string) *sql.DB {
	db, err := sql.Open("mysql", fmt.Sprintf("%s:%s@tcp(%s:%s)/drv_go?parseTime=true&loc=UTC&charset=utf8mb4%s", user, password, host, port, params))
	must(err)
	return db
}

func main() {
	target = os.Args[1]
	host, port, user, password := os.Args[2], os.Args[3], os.Args[4], ""
	if len(os.Args) > 5 {
		password = os.Args[5]
	}
	admin, err := sql.Open("mysql", fmt.Sprintf("%s:%s@tcp(%s:%s)/", user, password, host, port))
	must(err)
	_, err = admin.Exec("DROP DATABASE IF EXISTS drv_go")
	must(err)
	_, err = admin.Exec("CREATE DATABASE drv_go")
	must(err)
	admin.Close()
	db := open(host, port, user, password, "")
	defer db.Close()

	run("schema-crud", func() {
		_, err := db.Exec("CREATE TABLE teams (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(40) NOT NULL UNIQUE)")
		must(err)
		_, err = db.Exec("CREATE TABLE players (id BIGINT AUTO_INCREMENT PRIMARY KEY, team_id INT NOT NULL, name VARCHAR(40) NOT NULL, rating DECIMAL(5,1), joined DATE, FOREIGN KEY (team_id) REFERENCES teams (id) ON DELETE CASCADE)")
		must(err)
		res, err := db.Exec("INSERT INTO teams (name) VALUES (?), (?)", "red", "blue")
		must(err)
		id, _ := res.LastInsertId()
		n, _ := res.RowsAffected()
		check(id == 1 && n == 2, "insert id %d rows %d", id, n)
		stmt, err := db.Prepare("INSERT INTO players (team_id, name, rating, joined) VALUES (?, ?, ?, ?)")
		must(err)
		for _, p := range []struct {
			t      int
			n      string
			r      interface{}
			joined interface{}
		}{{1, "Ann", "7.5", time.Date(2020, 1, 2, 0, 0, 0, 0, time.UTC)}, {1, "Bob", nil, nil}, {2, "Cy", 9.0, "2021-06-30"}} {
			_, err := stmt.Exec(p.t, p.n, p.r, p.joined)
			must(err)
		}
		stmt.Close()
		rows, err := db.Query("SELECT t.name, COUNT(p.id), MAX(p.rating) FROM teams t LEFT JOIN players p ON p.team_id = t.id GROUP BY t.id, t.name ORDER BY t.id")
		must(err)
		var got []string
		for rows.Next() {
			var name string
			var cnt int64
			var best sql.NullString
			must(rows.Scan(&name, &cnt, &best))
			got = append(got, fmt.Sprintf("%s:%d:%v", name, cnt, best.String))
		}
		must(rows.Err())
		check(strings.Join(got, ",") == "red:2:7.5,blue:1:9.0", "join %v", got)
		_, err = db.Exec("INSERT INTO teams (name) VALUES ('red')")
		var me *mysql.MySQLError
		check(errors.As(err, &me) && me.Number == 1062, "duplicate %v", err)
		_, err = db.Exec("INSERT INTO players (team_id, name) VALUES (99, 'x')")
		check(errors.As(err, &me) && me.Number == 1452, "FK %v", err)
		res, err = db.Exec("UPDATE players SET rating = rating + 1 WHERE rating IS NOT NULL")
		must(err)
		n, _ = res.RowsAffected()
		check(n == 2, "updated %d", n)
		_, err = db.Exec("DELETE FROM teams WHERE id = ?", 2)
		must(err)
		var left int
		must(db.QueryRow("SELECT COUNT(*) FROM players").Scan(&left))
		check(left == 2, "cascade %d", left)
	})

	for _, interp := range []bool{false, true} {
		name := "types-prepared"
		params := ""
		if interp {
			name, params = "types-interpolated", "&interpolateParams=true"
		}
		run(name, func() {
			d := open(host, port, user, password, params)
			defer d.Close()
			_, err := d.Exec("CREATE TABLE IF NOT EXISTS types (id INT PRIMARY KEY, ti TINYINT, bi BIGINT, ub BIGINT UNSIGNED, de DECIMAL(12,4), fl FLOAT, do DOUBLE, vc VARCHAR(20), bl BLOB, da DATE, dt DATETIME(6), ts TIMESTAMP(3) NULL, tm TIME, yr YEAR, bo BOOL, js JSON)")
			must(err)
			_, err = d.Exec("DELETE FROM types")
			must(err)
			_, err = d.Exec("INSERT INTO types VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", 1, -5, int64(-9223372036854775808), uint64(18446744073709551615), "-12345678.1234", float32(1.5), -2.25, "héllo", []byte{0, 0xff, 0x10}, "2024-02-29", time.Date(2024, 1, 2, 3, 4, 5, 123456000, time.UTC), time.Date(2024, 3, 4, 5, 6, 7, 890000000, time.UTC), "-838:59:59", 2024, true, `{"k": [1, 2]}`)
			must(err)
			_, err = d.Exec("INSERT INTO types (id) VALUES (?)", 2)
			must(err)
			var (
				ti     int8
				bi     int64
				ub     uint64
				de     string
				fl     float32
				do     float64
				vc     string
				bl     []byte
				da, dt time.Time
				ts     time.Time
				tm     string
				yr     int
				bo     bool
				js     string
			)
			must(d.QueryRow("SELECT ti, bi, ub, de, fl, do, vc, bl, da, dt, ts, tm, yr, bo, js FROM types WHERE id = ?", 1).Scan(&ti, &bi, &ub, &de, &fl, &do, &vc, &bl, &da, &dt, &ts, &tm, &yr, &bo, &js))
			check(ti == -5 && bi == -9223372036854775808 && ub == 18446744073709551615 && de == "-12345678.1234", "ints %d %d %d %s", ti, bi, ub, de)
			check(fl == 1.5 && do == -2.25 && vc == "héllo" && string(bl) == "\x00\xff\x10", "floats/strings %v %v %q %q", fl, do, vc, bl)
			check(da.Equal(time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)) && dt.Equal(time.Date(2024, 1, 2, 3, 4, 5, 123456000, time.UTC)), "dates %v %v", da, dt)
			check(ts.Equal(time.Date(2024, 3, 4, 5, 6, 7, 890000000, time.UTC)), "timestamp %v", ts)
			check(tm == "-838:59:59" && yr == 2024 && bo && js == `{"k": [1, 2]}`, "time/year/bool/json %q %d %v %q", tm, yr, bo, js)
			var nti sql.NullInt64
			var nde sql.NullString
			var ndt sql.NullTime
			var nfl sql.NullFloat64
			must(d.QueryRow("SELECT ti, de, dt, do FROM types WHERE id = ?", 2).Scan(&nti, &nde, &ndt, &nfl))
			check(!nti.Valid && !nde.Valid && !ndt.Valid && !nfl.Valid, "NULLs")
			rows, err := d.Query("SELECT de, vc, dt, ub FROM types WHERE id = ?", 1)
			must(err)
			cts, err := rows.ColumnTypes()
			must(err)
			var desc []string
			for _, ct := range cts {
				nullable, _ := ct.Nullable()
				p, s, _ := ct.DecimalSize()
				desc = append(desc, fmt.Sprintf("%s:%s:%v:%d,%d", ct.Name(), ct.DatabaseTypeName(), nullable, p, s))
			}
			rows.Close()
			check(strings.Join(desc, " ") == "de:DECIMAL:true:12,4 vc:VARCHAR:true:0,0 dt:DATETIME:true:6,6 ub:BIGINT:true:0,0", "column types %v", desc)
		})
	}

	run("transactions", func() {
		ctx := context.Background()
		tx, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelReadCommitted})
		must(err)
		_, err = tx.Exec("INSERT INTO teams (name) VALUES ('green')")
		must(err)
		var iso string
		must(tx.QueryRow("SELECT @@tx_isolation").Scan(&iso))
		must(tx.Rollback())
		// the driver sends SET TRANSACTION ISOLATION LEVEL … (the next transaction only) before
		// START TRANSACTION: the session's own level is unchanged
		check(iso == "REPEATABLE-READ", "isolation %s", iso)
		var n int
		must(db.QueryRow("SELECT COUNT(*) FROM teams WHERE name = 'green'").Scan(&n))
		check(n == 0, "rolled back %d", n)
		tx, err = db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		must(err)
		_, err = tx.Exec("INSERT INTO teams (name) VALUES ('ro')")
		var me *mysql.MySQLError
		check(errors.As(err, &me) && me.Number == 1792, "read only %v", err)
		must(tx.Rollback())
		tx, err = db.Begin()
		must(err)
		_, err = tx.Exec("INSERT INTO teams (name) VALUES ('black')")
		must(err)
		_, err = tx.Exec("SAVEPOINT a")
		must(err)
		_, err = tx.Exec("INSERT INTO teams (name) VALUES ('white')")
		must(err)
		_, err = tx.Exec("ROLLBACK TO SAVEPOINT a")
		must(err)
		must(tx.Commit())
		var names string
		must(db.QueryRow("SELECT GROUP_CONCAT(name ORDER BY name) FROM teams WHERE name IN ('black', 'white')").Scan(&names))
		check(names == "black", "savepoint %s", names)
	})

	run("context-cancel", func() {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := db.ExecContext(ctx, "SELECT SLEEP(5)")
		check(err != nil && time.Since(start) < 3*time.Second, "cancelled %v after %v", err, time.Since(start))
		var one int
		must(db.QueryRow("SELECT 1").Scan(&one))
		check(one == 1, "pool still works")
	})

	run("multi-statements-and-pool", func() {
		d := open(host, port, user, password, "&multiStatements=true")
		defer d.Close()
		_, err := d.Exec("UPDATE teams SET name = name; INSERT INTO teams (name) VALUES ('m1'); INSERT INTO teams (name) VALUES ('m2')")
		must(err)
		rows, err := d.Query("SELECT 1; SELECT 2")
		must(err)
		var vals []int
		for {
			for rows.Next() {
				var v int
				must(rows.Scan(&v))
				vals = append(vals, v)
			}
			if !rows.NextResultSet() {
				break
			}
		}
		rows.Close()
		check(fmt.Sprint(vals) == "[1 2]", "result sets %v", vals)
		d.SetMaxOpenConns(4)
		done := make(chan error, 8)
		for i := 0; i < 8; i++ {
			go func(i int) {
				_, err := d.Exec("INSERT INTO teams (name) VALUES (?)", fmt.Sprintf("pool%d", i))
				done <- err
			}(i)
		}
		for i := 0; i < 8; i++ {
			must(<-done)
		}
		var n int
		must(d.QueryRow("SELECT COUNT(*) FROM teams WHERE name LIKE 'pool%'").Scan(&n))
		check(n == 8, "pool inserts %d", n)
	})

	if failures > 0 {
		os.Exit(1)
	}
}
