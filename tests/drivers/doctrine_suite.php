<?php
// Doctrine DBAL 3 (Debian's php-doctrine-dbal, over PDO_mysql) against one server: the schema
// manager creates tables with FKs, indexes and defaults from a Schema, introspects them
// (listTableColumns / Indexes / ForeignKeys, table options, introspectSchema), the comparator
// finds nothing to change right after, a changed Schema (a column widened and made NOT NULL, one
// added, an index and a FK added, a column dropped) is migrated and found equal afterwards; the
// query builder, transactions with savepoints (nested), and platform detection.
// Usage: php doctrine_suite.php TARGET HOST PORT USER PASSWORD
require '/usr/share/php/Doctrine/DBAL/autoload.php';

use Doctrine\DBAL\DriverManager;
use Doctrine\DBAL\Schema\Schema;
use Doctrine\DBAL\Types\Types;

[$_, $target, $host, $port, $user, $password] = $argv + [5 => ''];
$suite_lib = 'doctrine';
require __DIR__ . '/suitelib.php';

// DBAL 3's own default table options are utf8 / utf8_unicode_ci; applications set theirs (Symfony's
// recipe: utf8mb4 / utf8mb4_unicode_ci). utf8mb4_general_ci here: Cohort has no _unicode_ci yet.
$params = ['driver' => 'pdo_mysql', 'host' => $host, 'port' => (int)$port, 'user' => $user, 'password' => $password, 'charset' => 'utf8mb4',
    'defaultTableOptions' => ['charset' => 'utf8mb4', 'collate' => 'utf8mb4_general_ci']];
$admin = DriverManager::getConnection($params);
$admin->executeStatement('DROP DATABASE IF EXISTS drv_doctrine');
$admin->createSchemaManager()->createDatabase('drv_doctrine');
$admin->close();
$conn = DriverManager::getConnection($params + ['dbname' => 'drv_doctrine']);

function schema($v2) {
    global $conn;
    $s = new Schema([], [], $conn->createSchemaManager()->createSchemaConfig());
    $u = $s->createTable('users');
    $u->addColumn('id', Types::INTEGER, ['unsigned' => true, 'autoincrement' => true]);
    $u->addColumn('email', Types::STRING, ['length' => $v2 ? 190 : 120, 'notnull' => true]);
    $u->addColumn('name', Types::STRING, ['length' => 60, 'notnull' => $v2, 'default' => $v2 ? 'anon' : null]);
    $u->addColumn('score', Types::DECIMAL, ['precision' => 8, 'scale' => 2, 'default' => '0.00']);
    $u->addColumn('active', Types::BOOLEAN, ['default' => true]);
    $u->addColumn('created_at', Types::DATETIME_MUTABLE, ['notnull' => false]);
    $u->addColumn('bio', Types::TEXT, ['notnull' => false, 'comment' => 'about me']);
    if (!$v2) $u->addColumn('legacy', Types::SMALLINT, ['notnull' => false]);
    if ($v2) $u->addColumn('country', Types::STRING, ['length' => 2, 'fixed' => true, 'notnull' => false]);
    $u->setPrimaryKey(['id']);
    $u->addUniqueIndex(['email'], 'uniq_users_email');
    if ($v2) $u->addIndex(['country', 'name'], 'idx_users_country_name');
    $p = $s->createTable('posts');
    $p->addColumn('id', Types::BIGINT, ['autoincrement' => true]);
    $p->addColumn('user_id', Types::INTEGER, ['unsigned' => true]);
    $p->addColumn('title', Types::STRING, ['length' => 200]);
    $p->addColumn('meta', Types::JSON, ['notnull' => false]);
    $p->addColumn('published', Types::DATE_MUTABLE, ['notnull' => false]);
    if ($v2) $p->addColumn('editor_id', Types::INTEGER, ['unsigned' => true, 'notnull' => false]);
    $p->setPrimaryKey(['id']);
    $p->addIndex(['user_id'], 'idx_posts_user');
    $p->addForeignKeyConstraint('users', ['user_id'], ['id'], ['onDelete' => 'CASCADE'], 'fk_posts_user');
    if ($v2) {
        $p->addIndex(['editor_id'], 'idx_posts_editor');
        $p->addForeignKeyConstraint('users', ['editor_id'], ['id'], ['onDelete' => 'SET NULL'], 'fk_posts_editor');
    }
    return $s;
}

function diffSql($conn, $to) {
    $sm = $conn->createSchemaManager();
    $from = $sm->introspectSchema();
    $diff = $sm->createComparator()->compareSchemas($from, $to);
    return $conn->getDatabasePlatform()->getAlterSchemaSQL($diff);
}

run('platform', function () use ($conn) {
    $p = $conn->getDatabasePlatform();
    check(stripos(get_class($p), 'MariaDb') !== false, 'platform ' . get_class($p));
});

run('create-and-introspect', function () use ($conn) {
    $sm = $conn->createSchemaManager();
    foreach (schema(false)->toSql($conn->getDatabasePlatform()) as $sql) $conn->executeStatement($sql);
    check($sm->listTableNames() === ['posts', 'users'], 'tables ' . j($sm->listTableNames()));
    $cols = [];
    foreach ($sm->listTableColumns('users') as $c) {
        $cols[] = [$c->getName(), $c->getType()->getName(), $c->getLength(), $c->getNotnull(), $c->getDefault(), $c->getAutoincrement(), $c->getUnsigned(), $c->getComment()];
    }
    check(j($cols) === j([['id', 'integer', null, true, null, true, true, null], ['email', 'string', 120, true, null, false, false, null],
        ['name', 'string', 60, false, null, false, false, null], ['score', 'decimal', null, true, '0.00', false, false, null],
        ['active', 'boolean', null, true, '1', false, false, null], ['created_at', 'datetime', 0, false, null, false, false, null],
        ['bio', 'text', 0, false, null, false, false, 'about me'], ['legacy', 'smallint', null, false, null, false, false, null]]), 'columns ' . j($cols));
    $idx = [];
    foreach ($sm->listTableIndexes('users') as $i) $idx[] = [$i->getName(), $i->getColumns(), $i->isUnique(), $i->isPrimary()];
    usort($idx, fn($a, $b) => strcmp($a[0], $b[0]));
    check(j($idx) === j([['PRIMARY', ['id'], true, true], ['uniq_users_email', ['email'], true, false]]), 'indexes ' . j($idx));
    $fks = array_map(fn($f) => [$f->getName(), $f->getLocalColumns(), $f->getForeignTableName(), $f->getForeignColumns(), $f->onDelete()], $sm->listTableForeignKeys('posts'));
    check(j($fks) === j([['fk_posts_user', ['user_id'], 'users', ['id'], 'CASCADE']]), 'fks ' . j($fks));
    $t = $sm->introspectTable('posts');
    check($t->getColumn('meta')->getType()->getName() === 'json', 'json column ' . $t->getColumn('meta')->getType()->getName());
    check($t->getOption('engine') === 'InnoDB' && $t->getOption('charset') === 'utf8mb4', 'options ' . j($t->getOptions()));
});

run('compare-finds-nothing', function () use ($conn) {
    $sql = diffSql($conn, schema(false));
    check($sql === [], 'pending ' . j($sql));
});

run('migrate', function () use ($conn) {
    $conn->insert('users', ['email' => 'a@x.org', 'name' => 'Ann', 'legacy' => 3]);
    $conn->insert('users', ['email' => 'b@x.org']);
    $conn->executeStatement("UPDATE users SET name = 'x' WHERE name IS NULL");
    $sql = diffSql($conn, schema(true));
    check(count($sql) >= 3, 'migration ' . j($sql));
    foreach ($sql as $q) $conn->executeStatement($q);
    $after = diffSql($conn, schema(true));
    check($after === [], 'pending after the migration ' . j($after));
    $sm = $conn->createSchemaManager();
    $u = $sm->introspectTable('users');
    check(!$u->hasColumn('legacy') && $u->getColumn('email')->getLength() === 190 && $u->getColumn('name')->getNotnull() && $u->getColumn('name')->getDefault() === 'anon', 'users after');
    check($u->getColumn('country')->getFixed() && $u->hasIndex('idx_users_country_name'), 'country');
    check(count($sm->listTableForeignKeys('posts')) === 2, 'two FKs');
    check($conn->fetchOne('SELECT COUNT(*) FROM users') == 2, 'data kept');
});

run('query-builder-and-transactions', function () use ($conn) {
    $uid = (int)$conn->fetchOne("SELECT id FROM users WHERE email = 'a@x.org'");
    $conn->insert('posts', ['user_id' => $uid, 'title' => 'Hello', 'meta' => '{"a":1}', 'published' => '2024-05-06'], ['meta' => Types::STRING]);
    $pid = (int)$conn->lastInsertId();
    check($pid === 1, "lastInsertId $pid");
    $rows = $conn->createQueryBuilder()->select('u.email', 'COUNT(p.id) AS n')->from('users', 'u')->leftJoin('u', 'posts', 'p', 'p.user_id = u.id')
        ->where('u.score >= :s')->setParameter('s', 0)->groupBy('u.id', 'u.email')->orderBy('u.email')->setMaxResults(10)->executeQuery()->fetchAllAssociative();
    check(j($rows) === j([['email' => 'a@x.org', 'n' => 1], ['email' => 'b@x.org', 'n' => 0]]), 'query builder ' . j($rows));
    $conn->setNestTransactionsWithSavepoints(true);
    $conn->beginTransaction();
    $conn->update('users', ['score' => '5.50'], ['id' => $uid]);
    $conn->beginTransaction();
    $conn->update('users', ['score' => '9.99'], ['id' => $uid]);
    $conn->rollBack();
    $conn->commit();
    check($conn->fetchOne('SELECT score FROM users WHERE id = ?', [$uid]) === '5.50', 'savepoint');
    try {
        $conn->transactional(function ($c) {
            $c->insert('users', ['email' => 'c@x.org', 'name' => 'Cy']);
            $c->insert('posts', ['user_id' => 999, 'title' => 'orphan']);
        });
        check(false, 'no FK error');
    } catch (Doctrine\DBAL\Exception\ForeignKeyConstraintViolationException $e) {
    }
    check($conn->fetchOne("SELECT COUNT(*) FROM users WHERE email = 'c@x.org'") == 0, 'rolled back');
    try {
        $conn->insert('users', ['email' => 'a@x.org', 'name' => 'dup']);
        check(false, 'no duplicate error');
    } catch (Doctrine\DBAL\Exception\UniqueConstraintViolationException $e) {
    }
    $conn->delete('users', ['id' => $uid]);
    check($conn->fetchOne('SELECT COUNT(*) FROM posts') == 0, 'CASCADE');
});

exit($failures ? 1 : 0);
