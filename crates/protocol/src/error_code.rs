//! MySQL error numbers and SQLSTATEs: the one place these numbers live.
//!
//! Numbers, SQLSTATEs and message formats follow MariaDB 10.11 (and MySQL, where they agree),
//! so that clients that test for a code (sysbench retries 1213 / 1205) behave as they do there.

/// A MySQL server error code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCode {
    /// 1007 Can't create database '%s'; database exists
    DbCreateExists,
    /// 1008 Can't drop database '%s'; database doesn't exist
    DbDropExists,
    /// 1020 Record has changed since last read in table '%s'
    CheckRead,
    /// 1026 Error writing file '%s' (errno: %d)
    ErrorOnWrite,
    /// 1036 Table '%s' is read only
    OpenAsReadonly,
    /// 1040 Too many connections
    ConCount,
    /// 1044 Access denied for user '%s'@'%s' to database '%s'
    DbAccessDenied,
    /// 1045 Access denied for user '%s'@'%s' (using password: %s)
    AccessDenied,
    /// 1046 No database selected
    NoDb,
    /// 1047 Unknown command
    UnknownCom,
    /// 1048 Column '%s' cannot be null
    BadNull,
    /// 1049 Unknown database '%s'
    BadDb,
    /// 1050 Table '%s' already exists
    TableExists,
    /// 1347 '%s.%s' is not of type '%s'
    WrongObject,
    /// 1462 `%s`.`%s` contains view recursion
    ViewRecursive,
    /// 1353 View's SELECT and view's field list have different column counts
    ViewWrongList,
    /// 1368 CHECK OPTION on non-updatable view %s
    ViewNonupdCheck,
    /// 1965 '%s' is a view
    ItIsAView,
    /// 4092 Unknown VIEW: '%s'
    UnknownView,
    /// 1051 Unknown table '%s'
    BadTable,
    /// 1052 Column '%s' in %s is ambiguous
    NonUniq,
    /// 1054 Unknown column '%s' in '%s'
    BadField,
    /// 1055 '%s' isn't in GROUP BY
    WrongFieldWithGroup,
    /// 1140 Mixing of GROUP columns (MIN(),MAX(),COUNT(),...) with no GROUP columns is illegal
    /// if there is no GROUP BY clause
    MixOfGroupFuncAndFields,
    /// 1056 Can't group on '%s'
    WrongGroupField,
    /// 1060 Duplicate column name '%s'
    DupFieldName,
    /// 1061 Duplicate key name '%s'
    DupKeyName,
    /// 1062 Duplicate entry '%s' for key '%s'
    DupEntry,
    /// 1064 You have an error in your SQL syntax
    ParseError,
    /// 1065 Query was empty
    EmptyQuery,
    /// 1066 Not unique table/alias: '%s'
    NonUniqTable,
    /// 1067 Invalid default value for '%s'
    InvalidDefault,
    /// 1116 Too many tables; MariaDB can only use %d tables in a join
    TooManyTables,
    /// 1068 Multiple primary key defined
    MultiplePriKey,
    /// 1075 Incorrect table definition; there can be only one auto column and it must be defined as a key
    WrongAutoKey,
    /// 1091 Can't DROP INDEX `%s`; check that it exists
    CantDropFieldOrKey,
    /// 1096 No tables used
    NoTablesUsed,
    /// 1105 Unknown error
    Unknown,
    /// 1110 Column '%s' specified twice
    FieldSpecifiedTwice,
    /// 1111 Invalid use of group function
    InvalidGroupFuncUse,
    /// 1113 A table must have at least 1 column
    TableMustHaveColumns,
    /// 1136 Column count doesn't match value count at row %d
    WrongValueCountOnRow,
    /// 1146 Table '%s.%s' doesn't exist
    NoSuchTable,
    /// 1149 You have an error in your SQL syntax (unsupported construct)
    SyntaxError,
    /// 1153 Got a packet bigger than 'max_allowed_packet' bytes
    NetPacketTooLarge,
    /// 1156 Got packets out of order
    NetPacketsOutOfOrder,
    /// 1158 Got an error reading communication packets
    NetReadError,
    /// 1170 BLOB/TEXT column '%s' used in key specification without a key length
    BlobKeyWithoutLength,
    /// 1171 All parts of a PRIMARY KEY must be NOT NULL
    PrimaryCantHaveNull,
    /// 1176 Key '%s' doesn't exist in table '%s'
    KeyDoesNotExist,
    /// 1193 Unknown system variable '%s'
    UnknownSystemVariable,
    /// 1205 Lock wait timeout exceeded; try restarting transaction
    LockWaitTimeout,
    /// 1210 Incorrect arguments to %s
    WrongArguments,
    /// 1213 Deadlock found when trying to get lock; try restarting transaction
    LockDeadlock,
    /// 1216 Cannot add or update a child row (unused; reserved)
    NoReferencedRow,
    /// 1227 Access denied; you need (at least one of) the %s privilege(s) for this operation
    SpecificAccessDenied,
    /// 1228 Variable '%s' is a SESSION variable and can't be used with SET GLOBAL
    LocalVariable,
    /// 1229 Variable '%s' is a GLOBAL variable and should be set with SET GLOBAL
    GlobalVariable,
    /// 1231 Variable '%s' can't be set to the value of '%s'
    WrongValueForVar,
    /// 1232 Incorrect argument type to variable '%s'
    WrongTypeForVar,
    /// 1256 Uncompressed data size too large; the maximum size is %d (probably, length of
    /// uncompressed data was corrupted)
    TooBigForUncompress,
    /// 1258 ZLIB: Not enough room in the output buffer (probably, length of uncompressed data
    /// was corrupted)
    ZlibZBufError,
    /// 1259 ZLIB: Input data corrupted
    ZlibZDataError,
    /// 1234 Incorrect usage/placement of '%s'
    CantUseOptionHere,
    /// 1235 This version of MariaDB doesn't yet support '%s'
    NotSupportedYet,
    /// 1238 Variable '%s' is a read only variable
    IncorrectGlobalLocalVar,
    /// 1243 Unknown prepared statement handler (%s) given to %s
    UnknownStmtHandler,
    /// 1264 Out of range value for column '%s' at row %d
    WarnDataOutOfRange,
    /// 1265 Data truncated for column '%s' at row %d
    WarnDataTruncated,
    /// 1292 Truncated incorrect %s value: '%s'
    TruncatedWrongValue,
    /// 1977 Cannot convert '%s' character 0x%-.64s to '%s'
    CannotConvertCharacter,
    /// 1295 This command is not supported in the prepared statement protocol yet
    UnsupportedPs,
    /// 1364 Field '%s' doesn't have a default value
    NoDefaultForField,
    /// 1366 Incorrect %s value: '%s' for column '%s' at row %d
    TruncatedWrongValueForField,
    /// 1396 Operation %s failed for %s
    CannotUser,
    /// 1406 Data too long for column '%s' at row %d
    /// 1090 You can't delete all columns with ALTER TABLE; use DROP TABLE instead
    CantRemoveAllFields,
    /// 1412 Table definition has changed, please retry transaction
    TableDefChanged,
    /// 1845 %s is not supported for this operation. Try %s
    AlterOperationNotSupported,
    /// 1846 %s is not supported. Reason: %s. Try %s
    AlterOperationNotSupportedReason,
    /// 1280 Incorrect index name '%s'
    WrongNameForIndex,
    /// 1031 Storage engine %s of the table %`s.%`s doesn't have this option
    IllegalHa,
    DataTooLong,
    /// 1411 Incorrect %s value: '%s' for function %s
    WrongValueForType,
    /// 1441 Datetime function: %s field overflow
    DatetimeFunctionOverflow,
    /// 1139 Got error '%s' from regexp
    RegexpError,
    /// 1583 Incorrect parameters in the call to native function '%s'
    WrongParametersToNativeFct,
    /// 1582 Incorrect parameter count in the call to native function '%s'
    WrongParamcountToNativeFct,
    /// 1958 Bad base64 data as position %u
    BadBase64Data,
    /// 1649 Unknown locale: '%s'
    UnknownLocale,
    /// 1425 Too big scale specified for '%s'. Maximum is %u
    TooBigScale,
    /// 1426 Too big precision specified for '%s'. Maximum is %u
    TooBigPrecision,
    /// 1427 For float(M,D), double(M,D) or decimal(M,D), M must be >= D (column '%s')
    MBiggerThanD,
    /// 1064-like: 1439 Display width out of range for '%s' (max = %d)
    TooBigDisplaywidth,
    /// 1525 Incorrect %s value: '%s'
    WrongValue,
    /// 1305 SAVEPOINT %s does not exist (the "%s does not exist" of stored programs)
    SpDoesNotExist,
    /// 1568 Transaction characteristics can't be changed while a transaction is in progress
    CantChangeTxCharacteristics,
    /// 1690 %s value is out of range in '%s'
    DataOutOfRange,
    /// 1792 Cannot execute statement in a READ ONLY transaction
    CantExecuteInReadOnlyTransaction,
    /// 1365 Division by 0
    DivisionByZero,
    /// 1367 Illegal %s '%s' value found during parsing
    IllegalValueForType,
    /// 1146-style: 1109 Unknown table '%s' in %s
    UnknownTable,
    /// 1166 Incorrect column name '%s'
    WrongColumnName,
    /// 1102 Incorrect database name '%s'
    WrongDbName,
    /// 1103 Incorrect table name '%s'
    WrongTableName,
    /// 1059 Identifier name '%s' is too long
    TooLongIdent,
    /// 1074 Column length too big for column '%s' (max = %lu); use BLOB or TEXT instead
    TooBigFieldlength,
    /// 1118 Row size too large. The maximum row size for the used table type, not counting
    /// BLOBs, is %ld. …
    TooBigRowsize,
    /// 1072 Key column '%s' doesn't exist in table
    KeyColumnDoesNotExist,
    /// 1101 BLOB/TEXT column '%s' can't have a default value
    BlobCantHaveDefault,
    /// 1141 There is no such grant defined for user '%s' on host '%s'
    NonexistingGrant,
    /// 1133 Can't find any matching row in the user table
    PasswordNoMatch,
    /// 1192 Can't execute the given command because you have active locked tables or an active transaction
    LockOrActiveTransaction,
    /// 1180 Got error %d "%s" during COMMIT
    ErrorDuringCommit,
    /// 1021 Disk full (%s); waiting for someone to free some space...
    DiskFull,
    /// 1030 Got error %d "%s" from storage engine %s
    GetErrno,
    /// 1317 Query execution was interrupted
    QueryInterrupted,
    /// 1969 Query execution was interrupted (max_statement_time exceeded)
    StatementTimeout,
    /// 1971 The system variable %s cannot be set in SET STATEMENT.
    SetStatementNotSupported,
    /// 4081 Unknown structured system variable or ROW routine variable '%s'
    UnknownStructuredVariable,
    /// 1094 Unknown thread id: %lu
    NoSuchThread,
    /// 1095 You are not owner of thread %lu
    KillDenied,
    /// 1099 Table '%s' was locked with a READ lock and can't be updated
    TableNotLockedForWrite,
    /// 1100 Table '%s' was not locked with LOCK TABLES
    TableNotLocked,
    /// 1927 Connection was killed
    ConnectionKilled,
    /// 1290 The MariaDB server is running with the %s option so it cannot execute this statement
    OptionPreventsStatement,
    /// 1373 Target log not found in binlog index
    UnknownTargetBinlog,
    /// 1381 You are not using binary logging
    NoBinaryLogging,
    /// 1220 Error when executing command %s: %s
    ErrorWhenExecutingCommand,
    /// 1222 The used SELECT statements have a different number of columns
    WrongNumberOfColumnsInSelect,
    /// 1242 Subquery returns more than 1 row
    SubqueryNo1Row,
    /// 1241 Operand should contain %d column(s)
    OperandColumns,
    /// 1473 Too high level of nesting for select
    TooHighLevelOfNestingForSelect,
    /// 1247 Reference '%s' not supported (%s)
    IllegalReference,
    /// 1054-like: 1327 Undeclared variable: %s
    SpUndeclaredVar,
    /// 1142 %s command denied to user '%s'@'%s' for table '%s'
    TableaccessDenied,
    /// 1126 Can't open shared library (unused)
    CantOpenLibrary,
    /// 1184 Aborted connection %u to db: '%s' user: '%s' (%s)
    NewAbortingConnection,
    /// 1251 Client does not support authentication protocol requested by server
    NotSupportedAuthMode,
    /// 1043 Bad handshake
    HandshakeError,
    /// 1835 Malformed communication packet
    MalformedPacket,
    /// 1301 Result of %s() was larger than max_allowed_packet (%ld) - truncated
    WarnAllowedPacketOverflowed,
    /// 1461 Can't create more than max_prepared_stmt_count statements (current value: %u)
    MaxPreparedStmtCountReached,
    /// 1621 %s variable '%s' is read-only. Use SET %s to assign the value
    VariableIsReadonly,
    /// 1236 (a dump thread's fatal error; the text says what: unknown file, position, GTID)
    MasterFatalErrorReadingBinlog,
    /// 1941 Could not parse GTID list
    IncorrectGtidState,
    /// 1943 GTID %u-%u-%llu and %u-%u-%llu conflict (duplicate domain id %u)
    DuplicateGtidDomain,
    /// 4052 A slave with the same server_uuid/server_id as this slave has connected to the master
    SlaveSameId,
    /// 3159 Connections using insecure transport are prohibited while
    /// --require_secure_transport=ON. (MySQL's number, and newer MariaDB's; 10.11 answers 1045.)
    SecureTransportRequired,
    /// 4167 No secure transports are configured, unable to set --require_secure_transport=ON
    NoSecureTransportsConfigured,
    /// 1221 Incorrect usage of %s and %s
    WrongUsage,
    /// 4009 Window specification with name '%s' is not defined
    WrongWindowSpecName,
    /// 4010 Multiple window specifications with the same name '%s'
    DupWindowName,
    /// 4011 Window specification referencing another one '%s' cannot contain partition list
    PartitionListInReferencingWindowSpec,
    /// 4012 Referenced window specification '%s' already contains order list
    OrderListInReferencingWindowSpec,
    /// 4013 Referenced window specification '%s' cannot contain window frame
    WindowFrameInReferencedWindowSpec,
    /// 4014 Unacceptable combination of window frame bound specifications
    BadCombinationOfWindowFrameBoundSpecs,
    /// 4015 Window function is allowed only in SELECT list and ORDER BY clause
    WrongPlacementOfWindowFunction,
    /// 4016 Window function is not allowed in window specification
    WindowFunctionInWindowSpec,
    /// 4017 Window frame is not allowed with '%s'
    NotAllowedWindowFrame,
    /// 4018 No order list in window specification for '%s'
    NoOrderListInWindowSpec,
    /// 4019 RANGE-type frame requires ORDER BY clause with single sort key
    RangeFrameNeedsSimpleOrderby,
    /// 4020 Integer is required for ROWS-type frame
    WrongTypeForRowsFrame,
    /// 4021 Numeric datatype is required for RANGE-type frame
    WrongTypeForRangeFrame,
    /// 4022 Frame exclusion is not supported yet
    FrameExclusionNotSupported,
    /// 4024 Argument of NTILE must be greater than 0
    InvalidNtileArgument,
    /// 4074 Window functions can not be used as arguments to group functions.
    SumFuncWithWindowFuncAsArg,
    /// 4037 Unexpected end of JSON text in argument %d to function '%s'
    JsonEofUnexpected,
    /// 4036 Character disallowed in JSON in argument %d to function '%s' at position %d
    JsonBadChr,
    /// 4038 Syntax error in JSON text in argument %d to function '%s' at position %d
    JsonSyntax,
    /// 4040 Limit of %d on JSON nested structures depth is reached in argument %d to function '%s' at position %d
    JsonDepth,
    /// 4051 Path expression '$' is not allowed in argument %d to function '%s'.
    JsonPathDollar,
    /// 4041 Unexpected end of JSON path in argument %d to function '%s'
    JsonPathEof,
    /// 4046 Argument 2 to function '%s' must be "one" or "all".
    JsonOneOrAll,
    /// 4042 Syntax error in JSON path in argument %d to function '%s' at position %d
    JsonPathSyntax,
    /// 4044 Wildcards or range in JSON path not allowed in argument %d to function '%s'
    JsonPathNoWildcard,
    /// 1147 There is no such grant defined for user '%s' on host '%s' on table '%s'
    NonexistingTableGrant,
    /// 1144 Illegal GRANT/REVOKE command; please consult the manual to see which privileges can be used
    IllegalGrantForTable,
    /// 1143 %s command denied to user '%s'@'%s' for column '%s' in table '%s'
    ColumnaccessDenied,
    /// 1410 You are not allowed to create a user with GRANT
    CantCreateUserWithGrant,
    /// 1436 Thread stack overrun (here: an expression nested too deeply)
    StackOverrun,
    /// 1467 Failed to read auto-increment value from storage engine
    AutoincReadFailed,
    /// 167 Out of range value for column '%s' at row %d (a generated auto-increment value)
    AutoincErange,
    /// 1063 Incorrect column specifier for column '%s'
    WrongFieldSpec,
    /// 1286 Unknown storage engine '%s'
    UnknownStorageEngine,
    /// 1747 PARTITION () clause on non partitioned table
    PartitionClauseOnNonpartitioned,
    /// 1616 DELAYED option not supported for table '%s'
    DelayedNotSupported,
    /// 1273 Unknown collation: '%s'
    UnknownCollation,
    /// 1115 Unknown character set: '%s'
    UnknownCharacterSet,
    /// 1973 Can't create user '%s'@'%s'; it already exists
    UserCreateExists,
    /// 1974 Can't drop user '%s'@'%s'; it doesn't exist
    UserDropExists,
    /// 1005 Can't create table %`s (errno: %M)
    CantCreateTable,
    /// 1451 Cannot delete or update a parent row: a foreign key constraint fails (%s)
    RowIsReferenced2,
    /// 1452 Cannot add or update a child row: a foreign key constraint fails (%s)
    NoReferencedRow2,
    /// 1296 Got error %M '%-.100s' from %s
    GetErrmsg,
    /// 1553 Cannot drop index '%-.192s': needed in a foreign key constraint
    DropIndexFk,
    /// 1701 Cannot truncate a table referenced in a foreign key constraint (%.192s)
    TruncateIllegalFk,
    /// 1826 Duplicate %s constraint name '%s'
    DupConstraintName,
    /// 1832 Cannot change column '%-.192s': used in a foreign key constraint '%-.192s'
    FkColumnCannotChange,
    /// 1833 Cannot change column '%-.192s': used in a foreign key constraint '%-.192s' of table '%-.192s'
    FkColumnCannotChangeChild,
    /// 1822 Failed to add the foreign key constraint. Missing index for constraint '%s' in the referenced table '%s'
    FkNoIndexParent,
    /// 4025 CONSTRAINT %`s failed for %`-.192s.%`-.192s
    ConstraintFailed,
    /// 1970 %s does not support subqueries or stored functions
    SubqueryNotSupportedInCheck,
    /// 1901 Function or expression '%s' cannot be used in the %s clause of %`s
    FunctionNotAllowedInClause,
    /// 1931 Query execution was interrupted. The query exceeded %s %llu. The query result may
    /// be incomplete (a warning: max_recursive_iterations)
    QueryResultIncomplete,
    /// 4002 WITH column list and SELECT field list have different column counts
    WithColWrongList,
    /// 4004 Duplicate query name %`-.64s in WITH clause
    DupQueryName,
    /// 1250 Table '%s' from one of the SELECTs cannot be used in %s
    TableNameInUnionOrder,
    /// 3028 Expression #%u of ORDER BY contains aggregate function and applies to a UNION
    AggregateOrderForUnion,
    /// 4008 Restrictions imposed on recursive definitions are violated for table '%s'
    RecursiveRestrictions,
    /// 1261 Row %lu doesn't contain data for all columns
    WarnTooFewRecords,
    /// 1262 Row %lu was truncated; it contained more data than there were input columns
    WarnTooManyRecords,
    /// 1263 Column set to default value; NULL supplied to NOT NULL column '%s' at row %lu
    WarnNullToNotnull,
    /// 1083 Field separator argument is not what is expected; check the manual
    WrongFieldTerminators,
    /// 4166 The used command is not allowed because the MariaDB server or client has disabled
    /// the local infile capability
    LoadInfileCapabilityDisabled,
    /// 13 Can't get stat of '%s' (Errcode: %d "%s") (mysys EE_STAT)
    CantGetStat,
    /// 29 File '%s' not found (Errcode: %d "%s") (mysys EE_FILENOTFOUND)
    FileNotFound,
    /// 1175 You are using safe update mode and you tried to update a table without a WHERE
    /// that uses a KEY column
    UpdateWithoutKeyInSafeMode,
    /// 1298 Unknown or incorrect time zone: '%s'
    UnknownTimeZone,
    /// 1288 The target table %s of the %s is not updatable
    NonUpdatableTable,
    /// 1093 Table '%s' is specified twice, both as a target for '%s' and as a separate source
    /// for data
    UpdateTableUsed,
    /// 1348 Column '%s' is not updatable
    NonUpdatableColumn,
    /// 1369 CHECK OPTION failed '%s'
    ViewCheckFailed,
    /// 1471 The target table %s of the %s is not insertable-into
    NonInsertableTable,
    /// 1291 Column '%s' has duplicated value '%s' in %s
    DuplicatedValueInType,
    /// 1097 Too many strings for column %s and SET
    TooBigSet,
    /// 1903 Primary key cannot be defined upon a generated column
    PrimaryKeyOnGeneratedColumn,
    /// 1907 This is not yet supported for generated columns
    UnsupportedActionOnGeneratedColumn,
    /// 1906 The value specified for generated column '%s' in table '%s' has been ignored
    WarningNonDefaultValueForGeneratedColumn,
    /// 4029 Expression for field %`-.64s is referring to uninitialized field %`s
    ExpressionRefersToUninitField,
    /// 1299 Invalid TIMESTAMP value in column '%s' at row %lu
    InvalidTimestamp,
    /// 1300 Invalid %s character string: '%.64T'
    InvalidCharacterString,
    /// 1761 Foreign key constraint for table '%.192s', record '%-.192s' would lead to a duplicate entry in table '%.192s', key '%.192s'
    ForeignDuplicateKeyWithChildInfo,
    /// 1618 <%s> option ignored
    WarnOptionIgnored,
    /// 1253 COLLATION '%s' is not valid for CHARACTER SET '%s'
    CollationCharsetMismatch,
    /// 1172 Result consisted of more than one row
    TooManyRows,
    /// 1329 No data - zero rows fetched, selected, or processed
    SpFetchNoData,
    /// 1287 '%s' is deprecated and will be removed in a future release. Please use %s instead
    WarnDeprecatedSyntax,
    /// 1356 View '%s.%s' references invalid table(s) or column(s) or function(s) or
    /// definer/invoker of view lack rights to use them
    ViewInvalid,
    /// 1269 Can't revoke all privileges for one or more of the requested users
    RevokeGrants,
    /// 1267 Illegal mix of collations (%s,%s) and (%s,%s) for operation '%s'
    CantAggregate2Collations,
    /// 1270 Illegal mix of collations (%s,%s), (%s,%s), (%s,%s) for operation '%s'
    CantAggregate3Collations,
    /// 1271 Illegal mix of collations for operation '%s'
    CantAggregateNCollations,
    /// 1032 Can't find record in '%-.192s'
    KeyNotFound,
    /// 1575 Decoding of base64 string failed
    Base64DecodeError,
    /// 1609 The BINLOG statement of type %s was not preceded by a format description BINLOG
    /// statement
    NoFormatDescriptionEventBeforeBinlogStatement,
    /// 1532 Table definition on master and slave does not match: %s
    BinlogRowWrongTableDef,
    /// 1677 Column %d of table '%-.192s.%-.192s' cannot be converted from type '%-.50s' to
    /// type '%-.50s'
    SlaveConversionFailed,
    /// 1730 Only Format_description_log_event and row events are allowed in BINLOG statements
    /// (but %s was provided)
    OnlyFdAndRbrEventsAllowedInBinlogStatement,
    /// 1137 Can't reopen table: '%-.192s'
    CantReopenTable,
}

impl ErrorCode {
    /// The error number sent in the ERR packet.
    pub fn number(self) -> u16 {
        use ErrorCode::*;
        match self {
            StackOverrun => 1436,
            WrongUsage => 1221,
            WrongWindowSpecName => 4009,
            DupWindowName => 4010,
            PartitionListInReferencingWindowSpec => 4011,
            OrderListInReferencingWindowSpec => 4012,
            WindowFrameInReferencedWindowSpec => 4013,
            BadCombinationOfWindowFrameBoundSpecs => 4014,
            WrongPlacementOfWindowFunction => 4015,
            WindowFunctionInWindowSpec => 4016,
            NotAllowedWindowFrame => 4017,
            NoOrderListInWindowSpec => 4018,
            RangeFrameNeedsSimpleOrderby => 4019,
            WrongTypeForRowsFrame => 4020,
            WrongTypeForRangeFrame => 4021,
            FrameExclusionNotSupported => 4022,
            InvalidNtileArgument => 4024,
            SumFuncWithWindowFuncAsArg => 4074,
            QueryResultIncomplete => 1931,
            WithColWrongList => 4002,
            DupQueryName => 4004,
            TableNameInUnionOrder => 1250,
            AggregateOrderForUnion => 3028,
            RecursiveRestrictions => 4008,
            WarnTooFewRecords => 1261,
            WarnTooManyRecords => 1262,
            WarnNullToNotnull => 1263,
            WrongFieldTerminators => 1083,
            LoadInfileCapabilityDisabled => 4166,
            CantGetStat => 13,
            FileNotFound => 29,
            UpdateWithoutKeyInSafeMode => 1175,
            UnknownTimeZone => 1298,
            UserCreateExists => 1973,
            UserDropExists => 1974,
            CantCreateTable => 1005,
            RowIsReferenced2 => 1451,
            NoReferencedRow2 => 1452,
            GetErrmsg => 1296,
            DropIndexFk => 1553,
            TruncateIllegalFk => 1701,
            DupConstraintName => 1826,
            FkColumnCannotChange => 1832,
            FkColumnCannotChangeChild => 1833,
            FkNoIndexParent => 1822,
            ConstraintFailed => 4025,
            SubqueryNotSupportedInCheck => 1970,
            FunctionNotAllowedInClause => 1901,
            PartitionClauseOnNonpartitioned => 1747,
            DelayedNotSupported => 1616,
            UnknownCollation => 1273,
            UnknownCharacterSet => 1115,
            WrongFieldSpec => 1063,
            UnknownStorageEngine => 1286,
            AutoincReadFailed => 1467,
            AutoincErange => 167,
            DbCreateExists => 1007,
            DbDropExists => 1008,
            CheckRead => 1020,
            DiskFull => 1021,
            ErrorOnWrite => 1026,
            GetErrno => 1030,
            OpenAsReadonly => 1036,
            ConCount => 1040,
            HandshakeError => 1043,
            DbAccessDenied => 1044,
            AccessDenied => 1045,
            NoDb => 1046,
            UnknownCom => 1047,
            BadNull => 1048,
            BadDb => 1049,
            TableExists => 1050,
            WrongObject => 1347,
            ViewWrongList => 1353,
            ViewRecursive => 1462,
            ViewNonupdCheck => 1368,
            ItIsAView => 1965,
            UnknownView => 4092,
            BadTable => 1051,
            NonUniq => 1052,
            BadField => 1054,
            WrongFieldWithGroup => 1055,
            WrongGroupField => 1056,
            MixOfGroupFuncAndFields => 1140,
            TooLongIdent => 1059,
            DupFieldName => 1060,
            DupKeyName => 1061,
            DupEntry => 1062,
            ParseError => 1064,
            EmptyQuery => 1065,
            NonUniqTable => 1066,
            TooManyTables => 1116,
            InvalidDefault => 1067,
            MultiplePriKey => 1068,
            KeyColumnDoesNotExist => 1072,
            TooBigFieldlength => 1074,
            TooBigRowsize => 1118,
            WrongAutoKey => 1075,
            CantDropFieldOrKey => 1091,
            NoTablesUsed => 1096,
            BlobCantHaveDefault => 1101,
            WrongDbName => 1102,
            WrongTableName => 1103,
            Unknown => 1105,
            UnknownTable => 1109,
            FieldSpecifiedTwice => 1110,
            InvalidGroupFuncUse => 1111,
            TableMustHaveColumns => 1113,
            CantOpenLibrary => 1126,
            PasswordNoMatch => 1133,
            WrongValueCountOnRow => 1136,
            NonexistingGrant => 1141,
            TableaccessDenied => 1142,
            NoSuchTable => 1146,
            SyntaxError => 1149,
            NetPacketTooLarge => 1153,
            NetPacketsOutOfOrder => 1156,
            NetReadError => 1158,
            WrongColumnName => 1166,
            BlobKeyWithoutLength => 1170,
            PrimaryCantHaveNull => 1171,
            KeyDoesNotExist => 1176,
            ErrorDuringCommit => 1180,
            NewAbortingConnection => 1184,
            LockOrActiveTransaction => 1192,
            UnknownSystemVariable => 1193,
            LockWaitTimeout => 1205,
            WrongArguments => 1210,
            LockDeadlock => 1213,
            NoReferencedRow => 1216,
            ErrorWhenExecutingCommand => 1220,
            WrongNumberOfColumnsInSelect => 1222,
            SpecificAccessDenied => 1227,
            LocalVariable => 1228,
            GlobalVariable => 1229,
            WrongValueForVar => 1231,
            WrongTypeForVar => 1232,
            CantUseOptionHere => 1234,
            TooBigForUncompress => 1256,
            ZlibZBufError => 1258,
            ZlibZDataError => 1259,
            NotSupportedYet => 1235,
            IncorrectGlobalLocalVar => 1238,
            SubqueryNo1Row => 1242,
            OperandColumns => 1241,
            TooHighLevelOfNestingForSelect => 1473,
            UnknownStmtHandler => 1243,
            IllegalReference => 1247,
            NotSupportedAuthMode => 1251,
            WarnDataOutOfRange => 1264,
            WarnDataTruncated => 1265,
            OptionPreventsStatement => 1290,
            TruncatedWrongValue => 1292,
            CannotConvertCharacter => 1977,
            UnsupportedPs => 1295,
            QueryInterrupted => 1317,
            StatementTimeout => 1969,
            SetStatementNotSupported => 1971,
            UnknownStructuredVariable => 4081,
            NoSuchThread => 1094,
            KillDenied => 1095,
            TableNotLockedForWrite => 1099,
            TableNotLocked => 1100,
            ConnectionKilled => 1927,
            SpUndeclaredVar => 1327,
            NoDefaultForField => 1364,
            DivisionByZero => 1365,
            TruncatedWrongValueForField => 1366,
            IllegalValueForType => 1367,
            DuplicatedValueInType => 1291,
            TooBigSet => 1097,
            UnknownTargetBinlog => 1373,
            NoBinaryLogging => 1381,
            CannotUser => 1396,
            DataTooLong => 1406,
            IllegalHa => 1031,
            WrongNameForIndex => 1280,
            AlterOperationNotSupportedReason => 1846,
            AlterOperationNotSupported => 1845,
            TableDefChanged => 1412,
            CantRemoveAllFields => 1090,
            WrongValueForType => 1411,
            DatetimeFunctionOverflow => 1441,
            RegexpError => 1139,
            WrongParametersToNativeFct => 1583,
            WrongParamcountToNativeFct => 1582,
            BadBase64Data => 1958,
            UnknownLocale => 1649,
            TooBigScale => 1425,
            TooBigPrecision => 1426,
            MBiggerThanD => 1427,
            TooBigDisplaywidth => 1439,
            WrongValue => 1525,
            SpDoesNotExist => 1305,
            CantChangeTxCharacteristics => 1568,
            DataOutOfRange => 1690,
            CantExecuteInReadOnlyTransaction => 1792,
            MalformedPacket => 1835,
            WarnAllowedPacketOverflowed => 1301,
            MaxPreparedStmtCountReached => 1461,
            VariableIsReadonly => 1621,
            MasterFatalErrorReadingBinlog => 1236,
            IncorrectGtidState => 1941,
            DuplicateGtidDomain => 1943,
            SlaveSameId => 4052,
            SecureTransportRequired => 3159,
            NoSecureTransportsConfigured => 4167,
            JsonEofUnexpected => 4037,
            JsonBadChr => 4036,
            JsonSyntax => 4038,
            JsonDepth => 4040,
            JsonPathSyntax => 4042,
            JsonPathEof => 4041,
            JsonPathDollar => 4051,
            JsonOneOrAll => 4046,
            JsonPathNoWildcard => 4044,
            NonexistingTableGrant => 1147,
            IllegalGrantForTable => 1144,
            ColumnaccessDenied => 1143,
            CantCreateUserWithGrant => 1410,
            NonUpdatableTable => 1288,
            UpdateTableUsed => 1093,
            NonUpdatableColumn => 1348,
            ViewCheckFailed => 1369,
            NonInsertableTable => 1471,
            PrimaryKeyOnGeneratedColumn => 1903,
            WarningNonDefaultValueForGeneratedColumn => 1906,
            UnsupportedActionOnGeneratedColumn => 1907,
            ExpressionRefersToUninitField => 4029,
            InvalidTimestamp => 1299,
            InvalidCharacterString => 1300,
            ForeignDuplicateKeyWithChildInfo => 1761,
            WarnOptionIgnored => 1618,
            CollationCharsetMismatch => 1253,
            TooManyRows => 1172,
            SpFetchNoData => 1329,
            WarnDeprecatedSyntax => 1287,
            ViewInvalid => 1356,
            RevokeGrants => 1269,
            CantAggregate2Collations => 1267,
            CantAggregate3Collations => 1270,
            CantAggregateNCollations => 1271,
            KeyNotFound => 1032,
            Base64DecodeError => 1575,
            NoFormatDescriptionEventBeforeBinlogStatement => 1609,
            BinlogRowWrongTableDef => 1532,
            SlaveConversionFailed => 1677,
            OnlyFdAndRbrEventsAllowedInBinlogStatement => 1730,
            CantReopenTable => 1137,
        }
    }

    /// The five-character SQLSTATE sent after `#` in the ERR packet.
    pub fn sqlstate(self) -> &'static str {
        use ErrorCode::*;
        match self {
            ConCount => "08004",
            HandshakeError | UnknownCom | NetPacketTooLarge | NetPacketsOutOfOrder
            | NetReadError => "08S01",
            AccessDenied | NotSupportedAuthMode | PasswordNoMatch => "28000",
            DbAccessDenied
            | BadDb
            | ParseError
            | EmptyQuery
            | InvalidDefault
            | MultiplePriKey
            | WrongAutoKey
            | CantDropFieldOrKey
            | TableaccessDenied
            | SyntaxError
            | BlobKeyWithoutLength
            | PrimaryCantHaveNull
            | SpecificAccessDenied
            | NotSupportedYet
            | NonexistingGrant
            | NonexistingTableGrant
            | IllegalGrantForTable
            | ColumnaccessDenied
            | CantCreateUserWithGrant
            | WrongDbName
            | WrongTableName
            | TooLongIdent
            | DupKeyName
            | TooBigFieldlength
            | TooBigRowsize
            | BlobCantHaveDefault
            | KeyColumnDoesNotExist
            | WrongColumnName
            | TooBigPrecision
            | MBiggerThanD
            | TooBigDisplaywidth
            | WrongFieldSpec
            | TooBigScale
            | UnknownStorageEngine
            | UnknownCharacterSet
            | IllegalReference
            | WrongValueForVar
            | WrongTypeForVar
            | SpUndeclaredVar
            | WrongFieldWithGroup
            | WrongGroupField
            | MixOfGroupFuncAndFields
            | MaxPreparedStmtCountReached
            | KeyDoesNotExist
            | SpDoesNotExist
            | NonUniqTable
            | RegexpError
            | WrongParametersToNativeFct
            | WrongParamcountToNativeFct
            | CantUseOptionHere => "42000",
            TableNameInUnionOrder | FieldSpecifiedTwice => "42000",
            NoDb => "3D000",
            UnknownCollation => "HY000",
            BadNull | DupEntry => "23000",
            TableExists => "42S01",
            BadTable | NoSuchTable | UnknownTable | ItIsAView | UnknownView => "42S02",
            BadField => "42S22",
            ViewCheckFailed => "44000",
            NonUniq => "23000",
            WrongValueCountOnRow => "21S01",
            WrongNumberOfColumnsInSelect | SubqueryNo1Row | OperandColumns => "21000",
            LockDeadlock => "40001",
            WarnDataOutOfRange | DataOutOfRange | AutoincErange => "22003",
            DataTooLong => "22001",
            DupFieldName => "42S21",
            WrongNameForIndex => "42000",
            SetStatementNotSupported => "42000",
            AlterOperationNotSupportedReason => "0A000",
            AlterOperationNotSupported => "0A000",
            CantRemoveAllFields => "42000",
            DivisionByZero => "22012",
            TruncatedWrongValueForField => "22007",
            WarnDataTruncated => "01000",
            TruncatedWrongValue | WrongValue | IllegalValueForType => "22007",
            DatetimeFunctionOverflow => "22008",
            CantChangeTxCharacteristics => "25001",
            CantExecuteInReadOnlyTransaction => "25006",
            QueryInterrupted | ConnectionKilled | StatementTimeout => "70100",
            NoReferencedRow | RowIsReferenced2 | NoReferencedRow2 | ConstraintFailed => "23000",
            TruncateIllegalFk | SubqueryNotSupportedInCheck => "42000",
            WarnTooFewRecords | WarnTooManyRecords => "01000",
            WarnNullToNotnull => "22004",
            WrongFieldTerminators => "42000",
            ExpressionRefersToUninitField => "01000",
            ForeignDuplicateKeyWithChildInfo => "23000",
            CollationCharsetMismatch => "42000",
            TooManyRows => "42000",
            SpFetchNoData => "02000",
            _ => "HY000",
        }
    }
}
