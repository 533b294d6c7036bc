// TypeORM 0.3 (driver mysql2, type 'mariadb') against one server, in plain JavaScript with
// EntitySchema: synchronize of entities with relations (many-to-one with ON DELETE CASCADE,
// one-to-many, many-to-many with a join table), then what `migration:generate` computes (the schema
// builder's log: it introspects information_schema and must find nothing to do right after
// synchronize), migrations run / revert (a column altered, one added, an index), repository CRUD,
// relations loading (find with relations, query builder joins), transactions (the manager and a
// query runner with rollback), upsert, the query runner's getTable introspection.
// Usage: node typeorm_suite.js TARGET HOST PORT USER PASSWORD (typeorm, mysql2 from NODE_PATH)
require('reflect-metadata');
const { DataSource, EntitySchema, TableColumn, TableIndex } = require('typeorm');
const mysql = require('mysql2/promise');
const [target, host, port, user, password] = process.argv.slice(2);
const DB = 'drv_typeorm';
const { check, J, run, failures } = require('./suitelib')(target, 'typeorm', (e) => (e && e.query ? ` [query: ${e.query}]` : ''));

function entities(v2) {
  const Author = new EntitySchema({
    name: 'Author', tableName: 'author',
    columns: {
      id: { type: 'int', primary: true, generated: 'increment' },
      name: { type: 'varchar', length: v2 ? 120 : 80 },
      email: { type: 'varchar', length: 100, unique: true },
      rating: { type: 'decimal', precision: 5, scale: 2, default: 0 },
      bio: { type: 'text', nullable: true },
      kind: { type: 'enum', enum: ['person', 'org'], default: 'person' },
      meta: { type: 'json', nullable: true },
      createdAt: { type: 'datetime', precision: 6, createDate: true },
      updatedAt: { type: 'timestamp', updateDate: true },
      version: { type: 'int', version: true },
      ...(v2 ? { country: { type: 'char', length: 2, nullable: true } } : {}),
    },
    indices: v2 ? [{ name: 'IDX_author_country', columns: ['country'] }] : [],
    relations: { books: { type: 'one-to-many', target: 'Book', inverseSide: 'author' } },
  });
  const Book = new EntitySchema({
    name: 'Book', tableName: 'book',
    columns: {
      id: { type: 'int', primary: true, generated: 'increment' },
      title: { type: 'varchar', length: 200 },
      pages: { type: 'smallint', unsigned: true, nullable: true },
      published: { type: 'date', nullable: true },
      inPrint: { type: 'boolean', default: true },
      isbn: { type: 'bigint', nullable: true },
    },
    relations: {
      author: { type: 'many-to-one', target: 'Author', inverseSide: 'books', onDelete: 'CASCADE', nullable: false, joinColumn: { name: 'authorId' } },
      genres: { type: 'many-to-many', target: 'Genre', joinTable: { name: 'book_genre', joinColumn: { name: 'bookId' }, inverseJoinColumn: { name: 'genreId' } } },
    },
  });
  const Genre = new EntitySchema({
    name: 'Genre', tableName: 'genre',
    columns: { id: { type: 'int', primary: true, generated: 'increment' }, label: { type: 'varchar', length: 40, unique: true } },
  });
  return [Author, Book, Genre];
}

class AlterAuthor1700000000001 {
  constructor() { this.name = 'AlterAuthor1700000000001'; }
  async up(qr) {
    await qr.changeColumn('author', 'name', new TableColumn({ name: 'name', type: 'varchar', length: '120' }));
    await qr.addColumn('author', new TableColumn({ name: 'country', type: 'char', length: '2', isNullable: true }));
    await qr.createIndex('author', new TableIndex({ name: 'IDX_author_country', columnNames: ['country'] }));
  }
  async down(qr) {
    await qr.dropIndex('author', 'IDX_author_country');
    await qr.dropColumn('author', 'country');
    await qr.changeColumn('author', 'name', new TableColumn({ name: 'name', type: 'varchar', length: '80' }));
  }
}

(async () => {
  const base = { host, port: Number(port), user, password: password || '' };
  const admin = await mysql.createConnection(base);
  await admin.query(`DROP DATABASE IF EXISTS ${DB}`);
  await admin.query(`CREATE DATABASE ${DB}`);
  await admin.end();
  const opts = { type: 'mariadb', ...base, username: user, database: DB, logging: false, supportBigNumbers: true, bigNumberStrings: true, timezone: 'Z' };
  let ds = new DataSource({ ...opts, entities: entities(false), synchronize: false });
  await ds.initialize();

  await run('synchronize', async () => {
    await ds.synchronize();
    const tables = (await ds.query('SHOW TABLES')).map((r) => Object.values(r)[0]).sort();
    check(J(tables) === J(['author', 'book', 'book_genre', 'genre']), `tables ${J(tables)}`);
    const qr = ds.createQueryRunner();
    const book = await qr.getTable('book');
    await qr.release();
    const fk = book.foreignKeys.map((f) => `${f.columnNames}->${f.referencedTableName}(${f.referencedColumnNames}) ${f.onDelete}`);
    check(J(fk) === J(['authorId->author(id) CASCADE']), `book FKs ${J(fk)}`);
    const cols = book.columns.map((c) => `${c.name} ${c.type}${c.length ? `(${c.length})` : ''}${c.unsigned ? ' unsigned' : ''}${c.isNullable ? ' null' : ''}${c.default !== undefined ? ` default ${c.default}` : ''}`);
    check(J(cols) === J(['id int', 'title varchar(200)', 'pages smallint unsigned null', 'published date null', 'inPrint tinyint default 1', 'isbn bigint null', 'authorId int']), `book columns ${J(cols)}`);
  });

  await run('generate-finds-nothing', async () => {
    // what `typeorm migration:generate` runs: the schema builder against information_schema
    const log = await ds.driver.createSchemaBuilder().log();
    const ups = log.upQueries.map((q) => q.query);
    check(ups.length === 0, `pending after synchronize: ${J(ups)}`);
  });

  await run('crud-and-relations', async () => {
    const authors = ds.getRepository('Author');
    const books = ds.getRepository('Book');
    const genres = ds.getRepository('Genre');
    const a = await authors.save({ name: 'Ursula', email: 'u@x.org', rating: '4.75', meta: { tags: ['sf'], n: 1 }, kind: 'person' });
    check(a.id === 1 && a.version === 1 && a.createdAt instanceof Date, `saved ${J(a)}`);
    const b = await authors.save({ name: 'Acme', email: 'acme@x.org', kind: 'org' });
    const [sf, fant] = await genres.save([{ label: 'sf' }, { label: 'fantasy' }]);
    await books.save([
      { title: 'Dispossessed', pages: 387, published: '1974-05-01', author: a, genres: [sf], isbn: '9780060512750' },
      { title: 'Earthsea', pages: 205, author: a, genres: [fant, sf] },
      { title: 'Manual', author: b, inPrint: false },
    ]);
    const found = await authors.find({ relations: { books: { genres: true } }, order: { id: 'ASC', books: { id: 'ASC', genres: { label: 'ASC' } } } });
    const shape = found.map((x) => [x.name, x.books.map((bk) => [bk.title, bk.genres.map((g) => g.label)])]);
    check(J(shape) === J([['Ursula', [['Dispossessed', ['sf']], ['Earthsea', ['fantasy', 'sf']]]], ['Acme', [['Manual', []]]]]), `relations ${J(shape)}`);
    const one = await books.findOne({ where: { title: 'Dispossessed' }, relations: { author: true } });
    check(one.author.email === 'u@x.org' && one.pages === 387 && one.published === '1974-05-01' && one.inPrint === true && one.isbn === '9780060512750', `book ${J(one)}`);
    const u = await authors.findOneBy({ id: 1 });
    check(u.rating === '4.75' && J(u.meta) === J({ tags: ['sf'], n: 1 }), `author ${J(u)}`);
    u.bio = 'Writer';
    await authors.save(u);
    check(u.version === 2, `version ${u.version}`);
    const qb = await ds.createQueryBuilder('Book', 'b').innerJoin('b.author', 'a').leftJoin('b.genres', 'g')
      .select('a.name', 'author').addSelect('COUNT(DISTINCT b.id)', 'books').addSelect('COUNT(g.id)', 'tags')
      .where('a.kind IN (:...kinds)', { kinds: ['person', 'org'] }).groupBy('a.id').addGroupBy('a.name').orderBy('a.id').getRawMany();
    check(J(qb.map((r) => [r.author, Number(r.books), Number(r.tags)])) === J([['Ursula', 2, 3], ['Acme', 1, 0]]), `query builder ${J(qb)}`);
    const [rows, count] = await books.findAndCount({ where: { author: { id: 1 } }, skip: 1, take: 1, order: { id: 'ASC' } });
    check(count === 2 && rows.length === 1 && rows[0].title === 'Earthsea', `findAndCount ${count} ${J(rows)}`);
    const page = await authors.find({ relations: { books: true }, take: 1, skip: 1, order: { id: 'ASC' } });
    check(page.length === 1 && page[0].books.length === 1, `take with join ${J(page)}`);
    await ds.getRepository('Author').increment({ id: 2 }, 'rating', 1.5);
    check((await authors.findOneBy({ id: 2 })).rating === '1.50', 'increment');
  });

  await run('transactions', async () => {
    await ds.transaction(async (em) => {
      const a = await em.save('Author', { name: 'Tx', email: 'tx@x.org' });
      await em.save('Book', { title: 'Tx book', author: a });
    });
    check((await ds.getRepository('Author').countBy({ email: 'tx@x.org' })) === 1, 'committed');
    let err = null;
    try {
      await ds.transaction('READ COMMITTED', async (em) => {
        await em.save('Author', { name: 'Gone', email: 'gone@x.org' });
        await em.query('INSERT INTO book (title, authorId) VALUES (?, ?)', ['bad', 999]);
      });
    } catch (e) { err = e; }
    check(err && err.errno === 1452, `FK error ${err && err.errno} ${err && err.message}`);
    check((await ds.getRepository('Author').countBy({ email: 'gone@x.org' })) === 0, 'rolled back');
    const qr = ds.createQueryRunner();
    await qr.connect();
    await qr.startTransaction();
    await qr.manager.update('Author', { id: 1 }, { bio: 'changed' });
    await qr.startTransaction(); // nested: a savepoint
    await qr.manager.update('Author', { id: 1 }, { bio: 'changed twice' });
    await qr.rollbackTransaction();
    await qr.commitTransaction();
    await qr.release();
    check((await ds.getRepository('Author').findOneBy({ id: 1 })).bio === 'changed', 'savepoint rollback');
    const locked = await ds.transaction(async (em) => em.getRepository('Author').findOne({ where: { id: 1 }, lock: { mode: 'pessimistic_write' } }));
    check(locked.id === 1, 'FOR UPDATE');
  });

  await run('upsert', async () => {
    const genres = ds.getRepository('Genre');
    await genres.upsert([{ label: 'sf' }, { label: 'horror' }], ['label']);
    const labels = (await genres.find({ order: { id: 'ASC' } })).map((g) => g.label);
    check(J(labels) === J(['sf', 'fantasy', 'horror']), `upsert ${J(labels)}`);
    const r = await ds.createQueryBuilder().insert().into('Genre').values({ label: 'poetry' }).orIgnore().execute();
    check(r.identifiers.length === 1, `insert ${J(r)}`);
  });

  await run('migrations-run-revert', async () => {
    await ds.destroy();
    ds = new DataSource({ ...opts, entities: entities(true), migrations: [AlterAuthor1700000000001], migrationsTableName: 'migrations' });
    await ds.initialize();
    const pending = await ds.driver.createSchemaBuilder().log();
    const ups = pending.upQueries.map((q) => q.query);
    check(ups.some((q) => /ADD `country` char\(2\) NULL/.test(q)) && ups.some((q) => /CREATE INDEX `IDX_author_country`/.test(q)), `generated ${J(ups)}`);
    const ran = await ds.runMigrations();
    check(ran.length === 1 && ran[0].name === 'AlterAuthor1700000000001', `ran ${J(ran)}`);
    const after = (await ds.driver.createSchemaBuilder().log()).upQueries.map((q) => q.query);
    check(after.length === 0, `pending after the migration: ${J(after)}`);
    const qr = ds.createQueryRunner();
    const t = await qr.getTable('author');
    check(t.findColumnByName('name').length === '120' && t.indices.some((i) => i.name === 'IDX_author_country'), `author ${J(t.columns.map((c) => c.name))}`);
    await ds.undoLastMigration();
    const t2 = await qr.getTable('author');
    await qr.release();
    check(!t2.findColumnByName('country') && t2.findColumnByName('name').length === '80', `reverted ${J(t2.columns.map((c) => `${c.name}:${c.length}`))}`);
    check((await ds.query('SELECT COUNT(*) AS n FROM migrations'))[0].n == 0, 'migrations table');
    check((await ds.getRepository('Author').countBy({})) === 3, 'data kept');
  });

  await run('cascade-delete', async () => {
    await ds.getRepository('Author').delete({ id: 2 });
    check((await ds.getRepository('Book').countBy({ title: 'Manual' })) === 0, 'ON DELETE CASCADE');
  });

  await ds.destroy();
  process.exit(failures() ? 1 : 0);
})().catch((e) => {
  console.log(`FAIL: ${target}/typeorm/setup: ${String(e && (e.stack || e)).split('\n').slice(0, 3).join(' ')}`);
  process.exit(1);
});
