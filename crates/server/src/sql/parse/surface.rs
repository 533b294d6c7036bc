//! The SQL surface: every clause `sqlparser` can hand us is either honoured or refused.
//!
//! Executors read the fields they honour. This module looks at *every* field of every
//! statement struct that reaches them, by exhaustive destructuring (no `..`): a field added by
//! a newer `sqlparser` is a compile error here until someone decides what it means. A field
//! that is set but not honoured is refused before anything runs: 1235 (ER_NOT_SUPPORTED_YET),
//! or MariaDB's own error where MariaDB refuses it too (1064 for syntax MariaDB does not have,
//! 1747 for a PARTITION clause on a table that is not partitioned, 1616 for DELAYED on a
//! transactional table).
//!
//! The full table (clause → honoured / refused / MariaDB's error) is
//! `docs/architecture/sql-surface.md`; `testscripts/surface.test` checks each row.

use crate::error::{Error, Result};
use cohort_protocol::ErrorCode;
use sqlparser::ast::{self, Statement};

fn refuse(what: &str) -> Error {
    Error::unsupported(what)
}

/// MariaDB's 1064 for syntax it does not have either (`FOR UPDATE OF t`…).
fn syntax(near: &str) -> Error {
    Error::parse(near, 1)
}

fn partition_clause() -> Error {
    Error::new(
        ErrorCode::PartitionClauseOnNonpartitioned,
        "PARTITION () clause on non partitioned table",
    )
}

/// Check a statement `sqlparser` parsed before it is bound or run.
pub fn check(st: &Statement) -> Result<()> {
    match st {
        Statement::Query(q) => top_query(q),
        Statement::Insert(i) => insert(i),
        Statement::Update(u) => update(u),
        Statement::Delete(d) => delete(d),
        Statement::CreateTable(ct) => create_table(ct),
        Statement::CreateIndex(ci) => create_index(ci),
        Statement::AlterTable(at) => alter_table(at),
        Statement::Truncate(t) => truncate(t),
        // DROP TABLE / INDEX: every field is honoured or refused by the executor (TEMPORARY
        // is 1235, RESTRICT / CASCADE do nothing in MariaDB either).
        _ => Ok(()),
    }
}

// ---------------------------------------------------------------------------------------------
// Queries

/// A query nested in another statement part (a subquery, derived table, CTE): SELECT
/// SQL_CALC_FOUND_ROWS is misplaced anywhere in it (1234).
pub fn query(q: &ast::Query) -> Result<()> {
    query_at(q, false)
}

/// The statement's own query (a SELECT statement's, INSERT … SELECT's, CREATE TABLE …
/// SELECT's): its first SELECT may say SQL_CALC_FOUND_ROWS (see [`calc_found_rows`]).
pub fn top_query(q: &ast::Query) -> Result<()> {
    query_at(q, true)
}

/// A parenthesized operand of a set operation, checked again as it is bound: where
/// SQL_CALC_FOUND_ROWS may stand was settled when the query holding it was checked.
pub fn operand(q: &ast::Query) -> Result<()> {
    query_at(q, true)
}

/// Does the statement's query ask for SQL_CALC_FOUND_ROWS (on its first SELECT, the only
/// place MariaDB takes it: [`top_query`] refuses it elsewhere)?
pub fn calc_found_rows(q: &ast::Query) -> bool {
    let mut body = q.body.as_ref();
    loop {
        body = match body {
            ast::SetExpr::Select(s) => {
                return s
                    .select_modifiers
                    .as_ref()
                    .is_some_and(|m| m.sql_calc_found_rows)
            }
            ast::SetExpr::SetOperation { left, .. } => left,
            ast::SetExpr::Query(q) => q.body.as_ref(),
            _ => return false,
        };
    }
}

/// `top`: the statement's own query, whose first SELECT may say SQL_CALC_FOUND_ROWS.
fn query_at(q: &ast::Query, top: bool) -> Result<()> {
    let ast::Query {
        with,
        body,
        order_by,
        limit_clause,
        fetch,
        locks,
        for_clause,
        settings,
        format_clause,
        pipe_operators,
    } = q;
    if let Some(w) = with {
        with_clause(w)?;
    }
    if fetch.is_some() || for_clause.is_some() {
        return Err(refuse("FETCH / FOR XML"));
    }
    if settings.is_some() || format_clause.is_some() || !pipe_operators.is_empty() {
        return Err(syntax("SETTINGS / FORMAT / |>"));
    }
    if let Some(ob) = order_by {
        order_by_clause(ob)?;
    }
    if let Some(ast::LimitClause::LimitOffset { limit_by, .. }) = limit_clause {
        if !limit_by.is_empty() {
            return Err(syntax("LIMIT … BY"));
        }
    }
    lock_clauses(locks)?;
    set_expr(body, top)
}

/// A set operation's operands, parenthesized queries (checked when they are bound: see
/// `exec/query.rs`); VALUES is refused by the binder.
/// `first`: this is the statement's first SELECT (on the left spine of its own query).
fn set_expr(e: &ast::SetExpr, first: bool) -> Result<()> {
    match e {
        ast::SetExpr::Select(s) => select(s, first),
        ast::SetExpr::SetOperation { .. } => {
            // Down the left spine iteratively (a long UNION list is a deep left spine).
            let mut cur = e;
            while let ast::SetExpr::SetOperation { left, right, .. } = cur {
                stacker::maybe_grow(64 * 1024, 1024 * 1024, || set_expr(right, false))?;
                cur = left;
            }
            stacker::maybe_grow(64 * 1024, 1024 * 1024, || set_expr(cur, first))
        }
        ast::SetExpr::Query(q) => {
            stacker::maybe_grow(64 * 1024, 1024 * 1024, || query_at(q, first))
        }
        _ => Ok(()),
    }
}

/// `WITH [RECURSIVE] name [(columns)] AS (query), …`: the queries are checked when a reference
/// binds them; MATERIALIZED hints and `FROM` are not MariaDB's syntax.
fn with_clause(w: &ast::With) -> Result<()> {
    let ast::With {
        with_token: _,
        recursive: _,
        cte_tables,
    } = w;
    for c in cte_tables {
        let ast::Cte {
            alias,
            query: _,
            from,
            materialized,
            closing_paren_token: _,
        } = c;
        if from.is_some() || materialized.is_some() {
            return Err(syntax("MATERIALIZED"));
        }
        let ast::TableAlias {
            explicit: _,
            at,
            name: _,
            columns,
        } = alias;
        if at.is_some() {
            return Err(syntax("@"));
        }
        if columns.iter().any(|c| c.data_type.is_some()) {
            return Err(syntax("a typed column list"));
        }
    }
    Ok(())
}

fn order_by_clause(ob: &ast::OrderBy) -> Result<()> {
    let ast::OrderBy { kind, interpolate } = ob;
    if interpolate.is_some() {
        return Err(syntax("INTERPOLATE"));
    }
    if let ast::OrderByKind::Expressions(list) = kind {
        order_by_exprs(list)?;
    }
    Ok(())
}

fn order_by_exprs(list: &[ast::OrderByExpr]) -> Result<()> {
    for o in list {
        let ast::OrderByExpr {
            expr: _,
            options:
                ast::OrderByOptions {
                    sort: _,
                    nulls_first,
                },
            with_fill,
        } = o;
        if nulls_first.is_some() || with_fill.is_some() {
            return Err(syntax("NULLS FIRST / LAST"));
        }
    }
    Ok(())
}

/// `FOR UPDATE` and `FOR SHARE` (MySQL 8's spelling of `LOCK IN SHARE MODE`; MariaDB 10.11
/// has only the latter) are honoured, each with `NOWAIT` or `SKIP LOCKED` (see
/// `select::lock_clause`); `OF t` and a second clause are 1064, as in MariaDB.
/// `LOCK IN SHARE MODE [NOWAIT | SKIP LOCKED]` never gets here: the parser takes it off the end
/// of the text (see `parse/mod.rs`).
fn lock_clauses(locks: &[ast::LockClause]) -> Result<()> {
    if locks.len() > 1 {
        return Err(syntax("FOR UPDATE"));
    }
    for l in locks {
        let ast::LockClause {
            lock_type: _,
            of,
            nonblock: _,
        } = l;
        if of.is_some() {
            return Err(syntax("OF"));
        }
    }
    Ok(())
}

/// `first`: the statement's first SELECT, where SQL_CALC_FOUND_ROWS is in its place.
fn select(s: &ast::Select, first: bool) -> Result<()> {
    let ast::Select {
        select_token: _,
        // MariaDB 10.11 has no optimizer hints: `/*+ … */` is a comment there too.
        optimizer_hints: _,
        distinct: _,
        select_modifiers,
        top,
        top_before_distinct: _,
        projection: _,
        exclude,
        into,
        from,
        lateral_views,
        prewhere,
        selection: _,
        connect_by,
        // GROUP BY (WITH ROLLUP too; CUBE is 1235): exec/select.rs, exec/rollup.rs.
        group_by: _,
        cluster_by,
        distribute_by,
        sort_by,
        having: _,
        // WINDOW w AS (…): honoured (bind/window.rs); QUALIFY is 1235 (exec/select.rs).
        named_window: _,
        qualify: _,
        window_before_qualify: _,
        value_table_mode,
        flavor,
    } = s;
    if let Some(m) = select_modifiers {
        select_modifiers_clause(m, first)?;
    }
    if top.is_some() || exclude.is_some() {
        return Err(syntax("TOP / EXCLUDE"));
    }
    if into.is_some() {
        return Err(refuse("SELECT … INTO"));
    }
    if !lateral_views.is_empty()
        || prewhere.is_some()
        || !connect_by.is_empty()
        || !cluster_by.is_empty()
        || !distribute_by.is_empty()
        || !sort_by.is_empty()
        || value_table_mode.is_some()
        || *flavor != ast::SelectFlavor::Standard
    {
        return Err(syntax("this SELECT form"));
    }
    for t in from {
        table_with_joins(t)?;
    }
    Ok(())
}

/// HIGH_PRIORITY, STRAIGHT_JOIN, SQL_SMALL_RESULT, SQL_BIG_RESULT, SQL_BUFFER_RESULT and
/// SQL_NO_CACHE change how MariaDB schedules or plans a query, never its result: honoured
/// (by doing nothing, as MariaDB does for InnoDB without a query cache). SQL_CALC_FOUND_ROWS
/// is honoured on the statement's first SELECT (`exec/found_rows.rs`) and 1234 elsewhere, as
/// in MariaDB.
fn select_modifiers_clause(m: &ast::SelectModifiers, first: bool) -> Result<()> {
    let ast::SelectModifiers {
        high_priority: _,
        straight_join: _,
        sql_small_result: _,
        sql_big_result: _,
        sql_buffer_result: _,
        sql_no_cache: _,
        sql_calc_found_rows,
    } = m;
    if *sql_calc_found_rows && !first {
        return Err(Error::new(
            ErrorCode::CantUseOptionHere,
            "Incorrect usage/placement of 'SQL_CALC_FOUND_ROWS'",
        ));
    }
    Ok(())
}

fn table_with_joins(t: &ast::TableWithJoins) -> Result<()> {
    // Joins themselves are refused by the binder.
    table_factor(&t.relation)
}

fn table_factor(f: &ast::TableFactor) -> Result<()> {
    let ast::TableFactor::Table {
        name: _,
        alias,
        args: _,
        // USE / FORCE / IGNORE INDEX: a plan choice, never a result (MariaDB may ignore them
        // too); the planner chooses.
        with_hints: _,
        version,
        with_ordinality,
        partitions,
        json_path,
        sample,
        index_hints: _,
    } = f
    else {
        // Derived tables, table functions…: refused by the binder.
        return Ok(());
    };
    if !partitions.is_empty() {
        return Err(partition_clause());
    }
    if alias.as_ref().is_some_and(|a| !a.columns.is_empty()) {
        return Err(refuse("column aliases of a table"));
    }
    if version.is_some() || *with_ordinality || json_path.is_some() || sample.is_some() {
        return Err(syntax("this table reference"));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// DML

fn insert(i: &ast::Insert) -> Result<()> {
    let ast::Insert {
        insert_token: _,
        optimizer_hints: _,
        or,
        ignore: _,
        into: _,
        table: _,
        table_alias,
        columns: _,
        overwrite,
        source,
        assignments: _,
        partitioned,
        after_columns,
        has_table_keyword,
        on: _,
        returning: _,
        output: _,
        replace_into: _,
        priority,
        insert_alias: _,
        settings,
        format_clause,
        multi_table_insert_type,
        multi_table_into_clauses,
        multi_table_when_clauses,
        multi_table_else_clause,
    } = i;
    if or.is_some()
        || *overwrite
        || !after_columns.is_empty()
        || *has_table_keyword
        || settings.is_some()
        || format_clause.is_some()
        || multi_table_insert_type.is_some()
        || !multi_table_into_clauses.is_empty()
        || !multi_table_when_clauses.is_empty()
        || multi_table_else_clause.is_some()
    {
        return Err(syntax("this INSERT form"));
    }
    if table_alias.is_some() {
        return Err(refuse("INSERT INTO t alias"));
    }
    if partitioned.is_some() {
        return Err(partition_clause());
    }
    // LOW_PRIORITY / HIGH_PRIORITY only matter to engines with table locks: nothing to do
    // (as in MariaDB for InnoDB). DELAYED is MariaDB's 1616 for a transactional table.
    if let Some(ast::MysqlInsertPriority::Delayed) = priority {
        let name = match &i.table {
            ast::TableObject::TableName(n) => n.0.last().map(|p| p.to_string()),
            _ => None,
        };
        return Err(Error::new(
            ErrorCode::DelayedNotSupported,
            format!(
                "DELAYED option not supported for table '{}'",
                name.unwrap_or_default().trim_matches('`')
            ),
        ));
    }
    if let Some(q) = source {
        top_query(q)?;
    }
    Ok(())
}

fn update(u: &ast::Update) -> Result<()> {
    let ast::Update {
        update_token: _,
        optimizer_hints: _,
        table,
        assignments: _,
        from: _,
        selection: _,
        returning: _,
        output: _,
        or,
        order_by,
        limit: _,
    } = u;
    if or.is_some() {
        return Err(syntax("UPDATE OR"));
    }
    order_by_exprs(order_by)?;
    table_with_joins(table)
}

fn delete(d: &ast::Delete) -> Result<()> {
    let ast::Delete {
        delete_token: _,
        optimizer_hints: _,
        tables: _,
        from,
        using: _,
        selection: _,
        returning: _,
        output: _,
        order_by,
        limit: _,
    } = d;
    order_by_exprs(order_by)?;
    let (ast::FromTable::WithFromKeyword(f) | ast::FromTable::WithoutKeyword(f)) = from;
    f.iter().try_for_each(table_with_joins)
}

// ---------------------------------------------------------------------------------------------
// DDL

fn create_table(ct: &ast::CreateTable) -> Result<()> {
    let ast::CreateTable {
        or_replace: _,
        temporary: _,
        unlogged,
        external,
        dynamic,
        global,
        if_not_exists: _,
        transient,
        volatile,
        iceberg,
        snapshot,
        name: _,
        columns: _,
        constraints: _,
        hive_distribution,
        hive_formats,
        table_options: _,
        file_format,
        location,
        query: _,
        without_rowid,
        like: _,
        clone,
        version,
        comment: _,
        on_commit,
        on_cluster,
        primary_key,
        order_by,
        partition_by,
        cluster_by,
        clustered_by,
        inherits,
        partition_of,
        for_values,
        strict,
        copy_grants,
        enable_schema_evolution,
        change_tracking,
        data_retention_time_in_days,
        max_data_extension_time_in_days,
        default_ddl_collation,
        with_aggregation_policy,
        with_row_access_policy,
        with_storage_lifecycle_policy,
        with_tags,
        external_volume,
        with_connection,
        base_location,
        catalog,
        catalog_sync,
        storage_serialization_policy,
        target_lag,
        warehouse,
        refresh_mode,
        initialize,
        require_user,
        diststyle,
        distkey,
        sortkey,
        backup,
        multiset,
        fallback,
        with_data,
    } = ct;
    if partition_by.is_some() || partition_of.is_some() || for_values.is_some() {
        return Err(refuse("partitioned tables"));
    }
    let foreign = *unlogged
        || *external
        || *dynamic
        || global.is_some()
        || *transient
        || *volatile
        || *iceberg
        || *snapshot
        || *hive_distribution != ast::HiveDistributionStyle::NONE
        || hive_formats.is_some()
        || file_format.is_some()
        || location.is_some()
        || *without_rowid
        || clone.is_some()
        || version.is_some()
        || on_commit.is_some()
        || on_cluster.is_some()
        || primary_key.is_some()
        || order_by.is_some()
        || cluster_by.is_some()
        || clustered_by.is_some()
        || inherits.is_some()
        || *strict
        || *copy_grants
        || enable_schema_evolution.is_some()
        || change_tracking.is_some()
        || data_retention_time_in_days.is_some()
        || max_data_extension_time_in_days.is_some()
        || default_ddl_collation.is_some()
        || with_aggregation_policy.is_some()
        || with_row_access_policy.is_some()
        || with_storage_lifecycle_policy.is_some()
        || with_tags.is_some()
        || external_volume.is_some()
        || with_connection.is_some()
        || base_location.is_some()
        || catalog.is_some()
        || catalog_sync.is_some()
        || storage_serialization_policy.is_some()
        || target_lag.is_some()
        || warehouse.is_some()
        || refresh_mode.is_some()
        || initialize.is_some()
        || *require_user
        || diststyle.is_some()
        || distkey.is_some()
        || sortkey.is_some()
        || backup.is_some()
        || multiset.is_some()
        || fallback.is_some()
        || with_data.is_some();
    if foreign {
        return Err(syntax("this CREATE TABLE form"));
    }
    Ok(())
}

fn create_index(ci: &ast::CreateIndex) -> Result<()> {
    let ast::CreateIndex {
        name: _,
        table_name: _,
        using,
        columns,
        unique: _,
        concurrently,
        if_not_exists: _,
        include,
        nulls_distinct,
        with,
        predicate,
        index_options,
        alter_options,
        r#async,
    } = ci;
    if *concurrently
        || *r#async
        || !include.is_empty()
        || nulls_distinct.is_some()
        || !with.is_empty()
        || predicate.is_some()
    {
        return Err(syntax("this CREATE INDEX form"));
    }
    index_type(using.as_ref())?;
    index_columns(columns)?;
    index_options_clause(index_options)?;
    if !alter_options.is_empty() {
        return Err(refuse("ALGORITHM / LOCK options"));
    }
    Ok(())
}

/// `USING BTREE` is what every index here is (ordered); HASH / RTREE are not.
pub fn index_type(t: Option<&ast::IndexType>) -> Result<()> {
    match t {
        None | Some(ast::IndexType::BTree) => Ok(()),
        Some(other) => Err(refuse(&format!("USING {other} indexes"))),
    }
}

/// Index parts: ascending, no operator classes (`DESC` parts are refused: MariaDB keeps
/// them, and they change a scan's order).
pub fn index_columns(cols: &[ast::IndexColumn]) -> Result<()> {
    for c in cols {
        let ast::IndexColumn {
            column,
            operator_class,
        } = c;
        if operator_class.is_some() {
            return Err(syntax("operator class"));
        }
        if column.options.sort == Some(ast::OrderBySort::Desc) {
            return Err(refuse("descending index parts (DESC)"));
        }
        order_by_exprs(std::slice::from_ref(column))?;
    }
    Ok(())
}

/// Index options (`COMMENT 'x'`, `KEY_BLOCK_SIZE`, `VISIBLE`…) are not kept.
pub fn index_options_clause(opts: &[ast::IndexOption]) -> Result<()> {
    for o in opts {
        match o {
            ast::IndexOption::Using(t) => index_type(Some(t))?,
            other => return Err(refuse(&format!("the index option {other}"))),
        }
    }
    Ok(())
}

fn alter_table(at: &ast::AlterTable) -> Result<()> {
    let ast::AlterTable {
        name: _,
        if_exists,
        only,
        operations: _,
        location,
        on_cluster,
        table_type,
        end_token: _,
    } = at;
    if *if_exists {
        return Err(refuse("ALTER TABLE IF EXISTS"));
    }
    if *only || location.is_some() || on_cluster.is_some() || table_type.is_some() {
        return Err(syntax("this ALTER TABLE form"));
    }
    Ok(())
}

fn truncate(t: &ast::Truncate) -> Result<()> {
    let ast::Truncate {
        table_names: _,
        partitions,
        table: _,
        if_exists,
        identity,
        cascade,
        on_cluster,
    } = t;
    if partitions.is_some() {
        return Err(partition_clause());
    }
    if *if_exists || identity.is_some() || cascade.is_some() || on_cluster.is_some() {
        return Err(syntax("this TRUNCATE form"));
    }
    Ok(())
}
