#!/usr/bin/perl
# Perl DBI with DBD::MariaDB (Debian's libdbd-mariadb-perl) or, with DBD=mysql, DBD::mysql
# (libdbd-mysql-perl), both over libmariadb, against one server:
# client-side and server-side prepares (mariadb_server_prepare), every column type, NULLs,
# last_insert_id, rows, a schema with FKs, joins, RaiseError codes / SQLSTATEs, AutoCommit off /
# begin_work / rollback / savepoints, multiple result sets, DBI's catalog methods (table_info,
# column_info, primary_key_info, foreign_key_info, statistics_info), UTF-8 round trips.
# DBD::MariaDB sets collation_connection and collation_server to utf8mb4_unicode_ci on every
# connect (after SET NAMES 'utf8mb4'): its string literals then compare as unicode_ci.
# Both drivers set CLIENT_FOUND_ROWS: an UPDATE counts the rows it matched.
# Usage: [DBD=mysql] perl dbd_mariadb.pl TARGET HOST PORT USER PASSWORD
use strict;
use warnings;
use utf8;
use DBI qw(:sql_types);

my ($target, $host, $port, $user, $password) = @ARGV;
$password //= '';
my $failures = 0;
binmode STDOUT, ':utf8';
my $drv = ($ENV{DBD} // 'MariaDB') eq 'mysql' ? 'mysql' : 'MariaDB';
my $px = lc $drv;          # attribute prefix: mariadb_… / mysql_…
my $suite = "dbd-$px";

sub check { my ($c, $what) = @_; die "$what\n" unless $c; }
sub run {
    my ($name, $fn) = @_;
    eval { $fn->(); 1 } and do { print "PASS: $target/$suite/$name\n"; return };
    my $e = $@; $e =~ s/\s+/ /g;
    $failures++;
    print "FAIL: $target/$suite/$name: " . substr($e, 0, 500) . "\n";
}
sub j { join('|', map { defined $_ ? $_ : 'NULL' } @_) }

my %utf8 = $drv eq 'mysql' ? (mysql_enable_utf8mb4 => 1) : ();
my $dsn = "DBI:$drv:host=$host;port=$port";
my $admin = DBI->connect($dsn, $user, $password, { RaiseError => 0, PrintError => 0, %utf8 });
die "connect: $DBI::errstr\n" unless $admin;
$admin->{RaiseError} = 1;
$admin->do('DROP DATABASE IF EXISTS drv_perl');
$admin->do('CREATE DATABASE drv_perl');
$admin->disconnect;

sub conn {
    my (%o) = @_;
    my $sp = $o{server_prepare} ? ";${px}_server_prepare=1" : '';
    my $multi = $o{multi} ? ";${px}_multi_statements=1" : '';
    return DBI->connect("$dsn;database=drv_perl$sp$multi", $user, $password,
        { RaiseError => 1, PrintError => 0, AutoCommit => 1, %utf8 });
}

run('schema-crud', sub {
    my $d = conn();
    $d->do('CREATE TABLE authors (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(50) NOT NULL, UNIQUE KEY uq_name (name))');
    $d->do('CREATE TABLE books (id INT AUTO_INCREMENT PRIMARY KEY, author_id INT NOT NULL, title VARCHAR(100) NOT NULL, price DECIMAL(8,2), pub DATE, CONSTRAINT fk_author FOREIGN KEY (author_id) REFERENCES authors (id) ON DELETE CASCADE)');
    my $ins = $d->prepare('INSERT INTO authors (name) VALUES (?)');
    $ins->execute($_) for ('Le Guin', 'Lem', 'Čapek');
    check($d->last_insert_id(undef, undef, 'authors', 'id') == 3 && $d->{"${px}_insertid"} == 3, 'last_insert_id');
    my $b = $d->prepare('INSERT INTO books (author_id, title, price, pub) VALUES (?, ?, ?, ?)');
    $b->execute(1, 'The Dispossessed', '9.99', '1974-05-01');
    $b->execute(1, 'Earthsea', undef, undef);
    $b->execute(2, 'Solaris', '12.50', '1961-01-01');
    my $rows = $d->selectall_arrayref('SELECT a.name, COUNT(b.id), SUM(b.price) FROM authors a LEFT JOIN books b ON b.author_id = a.id GROUP BY a.id, a.name ORDER BY a.id');
    check(join(';', map { j(@$_) } @$rows) eq 'Le Guin|2|9.99;Lem|1|12.50;Čapek|0|NULL', 'join ' . join(';', map { j(@$_) } @$rows));
    my $n = $d->do("UPDATE books SET price = price * 2 WHERE price IS NOT NULL");
    check($n == 2, "rows $n");
    $n = $d->do("UPDATE books SET price = price WHERE id = 1");
    check($n == 1, "unchanged row found $n");
    eval { $ins->execute('Lem') };
    check($d->err == 1062 && $d->state eq '23000', 'duplicate ' . ($d->err // '') . ' ' . ($d->state // ''));
    eval { $d->do('INSERT INTO books (author_id, title) VALUES (99, "x")') };
    check($d->err == 1452, 'FK ' . ($d->err // ''));
    $d->do('DELETE FROM authors WHERE id = 1');
    check($d->selectrow_array('SELECT COUNT(*) FROM books') == 1, 'cascade');
});

for my $sp (0, 1) {
    my $label = $sp ? 'types-server-prepare' : 'types-client-prepare';
    run($label, sub {
        my $d = conn(server_prepare => $sp);
        $d->do('CREATE TABLE IF NOT EXISTS types (id INT PRIMARY KEY, ti TINYINT, bi BIGINT, ub BIGINT UNSIGNED, de DECIMAL(12,4), fl FLOAT, do DOUBLE, vc VARCHAR(20), bl BLOB, da DATE, dt DATETIME(6), tm TIME, yr YEAR, en ENUM("a","b"), bt BIT(5), js JSON)');
        $d->do('DELETE FROM types');
        my $st = $d->prepare('INSERT INTO types VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
        $st->bind_param($_ + 1, undef) for 0 .. 15;
        $st->bind_param(9, undef, SQL_BLOB);
        $st->execute(1, -5, '-9223372036854775808', '18446744073709551615', '-12345678.1234', 1.5, -2.25, 'héllo', "\x00\xff\x10", '2024-02-29', '2024-01-02 03:04:05.123456', '-838:59:59', 2024, 'b', undef, '{"k": [1, 2]}');
        $d->do(q{UPDATE types SET bt = b'10101' WHERE id = 1});
        $st->execute(2, (undef) x 15);
        my $q = $d->prepare('SELECT ti, bi, ub, de, fl, do, vc, bl, da, dt, tm, yr, en, bt, js FROM types WHERE id = ?');
        $q->execute(1);
        my @r = $q->fetchrow_array;
        my @want = (-5, '-9223372036854775808', '18446744073709551615', '-12345678.1234', 1.5, -2.25, 'héllo', "\x00\xff\x10", '2024-02-29', '2024-01-02 03:04:05.123456', '-838:59:59', 2024, 'b', "\x15", '{"k": [1, 2]}');
        for my $i (0 .. $#want) {
            my $ok = $want[$i] =~ /^-?[\d.]+$/ && $r[$i] =~ /^-?[\d.e+]+$/ ? $r[$i] == $want[$i] : $r[$i] eq $want[$i];
            check($ok, "column $q->{NAME}[$i]: got " . ($r[$i] // 'NULL') . " want $want[$i]");
        }
        $q->execute(2);
        my @n = $q->fetchrow_array;
        check(!grep({ defined } @n), 'NULLs ' . j(@n));
        my $types = $q->{TYPE};
        check(scalar(@$types) == 15 && $q->{NUM_OF_FIELDS} == 15, 'TYPE');
        check($q->{NAME}[3] eq 'de' && $q->{PRECISION}[3] == 14 && $q->{SCALE}[3] == 4, "decimal metadata $q->{PRECISION}[3] $q->{SCALE}[3]");
        check(join(',', @{ $q->{NULLABLE} }[0 .. 2]) eq '1,1,1', 'NULLABLE');
    });
}

run('transactions', sub {
    my $d = conn();
    $d->begin_work;
    $d->do("INSERT INTO authors (name) VALUES ('T1')");
    $d->rollback;
    check(!$d->selectrow_array("SELECT COUNT(*) FROM authors WHERE name = 'T1'"), 'rollback');
    $d->{AutoCommit} = 0;
    $d->do("INSERT INTO authors (name) VALUES ('T2')");
    $d->do('SAVEPOINT s1');
    $d->do("INSERT INTO authors (name) VALUES ('T3')");
    $d->do('ROLLBACK TO SAVEPOINT s1');
    $d->commit;
    $d->{AutoCommit} = 1;
    my $names = $d->selectcol_arrayref("SELECT name FROM authors WHERE name LIKE 'T%' ORDER BY name");
    check("@$names" eq 'T2', "savepoint @$names");
    $d->do('SET SESSION TRANSACTION ISOLATION LEVEL SERIALIZABLE');
    check($d->selectrow_array('SELECT @@tx_isolation') eq 'SERIALIZABLE', 'isolation');
    check($d->ping, 'ping');
});

run('multi-statements', sub {
    my $d = conn(multi => 1);
    my $st = $d->prepare('SELECT 1 AS a; SELECT 2 AS b, 3 AS c; UPDATE authors SET name = name WHERE id = 2');
    $st->execute;
    my @sets;
    do {
        push @sets, $st->{NUM_OF_FIELDS} ? j(map { @$_ } @{ $st->fetchall_arrayref }) : 'rows=' . $st->rows;
    } while ($st->more_results);
    check("@sets" eq '1 2|3 rows=1', "sets @sets");
});

run('catalog', sub {
    my $d = conn();
    my $t = $d->table_info(undef, 'drv_perl', '%', 'TABLE')->fetchall_arrayref({});
    check(join(',', sort map { $_->{TABLE_NAME} } @$t) eq 'authors,books,types', 'table_info ' . join(',', map { $_->{TABLE_NAME} } @$t));
    my $c = $d->column_info(undef, 'drv_perl', 'books', '%')->fetchall_arrayref({});
    check(join(',', map { "$_->{COLUMN_NAME}:$_->{TYPE_NAME}:" . ($_->{COLUMN_SIZE} // '') . ":$_->{NULLABLE}" } @$c) eq 'id:INT:11:0,author_id:INT:11:0,title:VARCHAR:100:0,price:DECIMAL:8:1,pub:DATE:10:1',
        'column_info ' . join(',', map { "$_->{COLUMN_NAME}:$_->{TYPE_NAME}:" . ($_->{COLUMN_SIZE} // '') . ":$_->{NULLABLE}" } @$c));
    my @pk = $d->primary_key(undef, 'drv_perl', 'books');
    check("@pk" eq 'id', "primary_key @pk");
    my $fk = $d->foreign_key_info(undef, 'drv_perl', 'authors', undef, 'drv_perl', 'books')->fetchall_arrayref({});
    my $f = $fk->[0] // {};
    my ($fkc, $ukc) = ($f->{FK_COLUMN_NAME} // $f->{FKCOLUMN_NAME} // '', $f->{UK_COLUMN_NAME} // $f->{PKCOLUMN_NAME} // '');
    check(@$fk == 1 && ($f->{FK_NAME} // '') eq 'fk_author' && $fkc eq 'author_id' && $ukc eq 'id', 'foreign_key_info ' . join(',', map { "$_=" . ($f->{$_} // 'NULL') } sort keys %$f));
    my $s = $d->statistics_info(undef, 'drv_perl', 'authors', 0, 0)->fetchall_arrayref({});
    check(join(',', sort map { "$_->{INDEX_NAME}:$_->{COLUMN_NAME}:$_->{NON_UNIQUE}" } grep { defined $_->{INDEX_NAME} } @$s) eq 'PRIMARY:id:0,uq_name:name:0', 'statistics_info ' . join(',', map { ($_->{INDEX_NAME} // '') . ':' . ($_->{COLUMN_NAME} // '') } @$s));
    my $info = $d->get_info(18); # SQL_DBMS_VER
    check(defined $info && length $info, 'get_info');
    check($d->quote("it's") eq q{'it\\'s'}, 'quote ' . $d->quote("it's"));
});

exit($failures ? 1 : 0);
