package db

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/uptrace/bun"

	"github.com/casegraph/casegraph/engine"
)

// CaseRecord is a case's row: what lists filter and sort on.
type CaseRecord struct {
	ID             string
	Tenant         string
	Name           string
	DefinitionName string
	DefinitionHash string
	State          string
	Failures       int
	ParentCaseID   string
	RootCaseID     string
	CreatedOn      time.Time
	CreatedBy      string
	LastModified   time.Time
	ModifiedBy     string
	Version        int64
}

type caseRow struct {
	bun.BaseModel `bun:"table:cases"`

	ID             string    `bun:"id,pk"`
	Tenant         string    `bun:"tenant"`
	Name           string    `bun:"name"`
	DefinitionName string    `bun:"definition_name"`
	DefinitionHash string    `bun:"definition_hash"`
	State          string    `bun:"state"`
	Failures       int       `bun:"failures"`
	ParentCaseID   string    `bun:"parent_case_id"`
	RootCaseID     string    `bun:"root_case_id"`
	CreatedOn      time.Time `bun:"created_on"`
	CreatedBy      string    `bun:"created_by"`
	LastModified   time.Time `bun:"last_modified"`
	ModifiedBy     string    `bun:"modified_by"`
	Version        int64     `bun:"version"`
	Snapshot       string    `bun:"snapshot"`
}

func (r caseRow) record() CaseRecord {
	return CaseRecord{ID: r.ID, Tenant: r.Tenant, Name: r.Name, DefinitionName: r.DefinitionName, DefinitionHash: r.DefinitionHash,
		State: r.State, Failures: r.Failures, ParentCaseID: r.ParentCaseID, RootCaseID: r.RootCaseID,
		CreatedOn: r.CreatedOn, CreatedBy: r.CreatedBy, LastModified: r.LastModified, ModifiedBy: r.ModifiedBy, Version: r.Version}
}

type teamMemberRow struct {
	bun.BaseModel `bun:"table:case_team_members"`

	CaseID     string `bun:"case_id,pk"`
	MemberType string `bun:"member_type,pk"`
	MemberID   string `bun:"member_id,pk"`
	IsOwner    bool   `bun:"is_owner"`
	Origin     string `bun:"origin"`
}

type teamRoleRow struct {
	bun.BaseModel `bun:"table:case_team_roles"`

	CaseID     string `bun:"case_id,pk"`
	MemberType string `bun:"member_type,pk"`
	MemberID   string `bun:"member_id,pk"`
	Role       string `bun:"role,pk"`
}

type planItemRow struct {
	bun.BaseModel `bun:"table:plan_items"`

	ID           string    `bun:"id,pk"`
	CaseID       string    `bun:"case_id,pk"`
	Position     int       `bun:"position"`
	DefinitionID string    `bun:"definition_id"`
	Name         string    `bun:"name"`
	Type         string    `bun:"type"`
	StageID      string    `bun:"stage_id"`
	Index        int       `bun:"idx"`
	State        string    `bun:"state"`
	HistoryState string    `bun:"history_state"`
	Transition   string    `bun:"transition"`
	IsRequired   bool      `bun:"is_required"`
	IsRepeating  bool      `bun:"is_repeating"`
	CreatedOn    time.Time `bun:"created_on"`
	LastModified time.Time `bun:"last_modified"`
	ModifiedBy   string    `bun:"modified_by"`
}

type taskRow struct {
	bun.BaseModel `bun:"table:tasks"`

	ID            string     `bun:"id,pk"`
	CaseID        string     `bun:"case_id,pk"`
	Tenant        string     `bun:"tenant"`
	CaseName      string     `bun:"case_name"`
	TaskName      string     `bun:"task_name"`
	TaskState     string     `bun:"task_state"`
	Role          string     `bun:"role"`
	Assignee      string     `bun:"assignee"`
	Owner         string     `bun:"owner"`
	DueDate       *time.Time `bun:"due_date"`
	CreatedOn     time.Time  `bun:"created_on"`
	CreatedBy     string     `bun:"created_by"`
	ActivatedOn   time.Time  `bun:"activated_on"`
	LastModified  time.Time  `bun:"last_modified"`
	ModifiedBy    string     `bun:"modified_by"`
	Input         string     `bun:"input"`
	Output        string     `bun:"output"`
	TaskModel     string     `bun:"task_model"`
	Documentation string     `bun:"documentation"`
}

type caseFileRow struct {
	bun.BaseModel `bun:"table:case_files"`

	CaseID string `bun:"case_id,pk"`
	Data   string `bun:"data"`
}

type identifierRow struct {
	bun.BaseModel `bun:"table:case_identifiers"`

	CaseID string `bun:"case_id,pk"`
	Tenant string `bun:"tenant"`
	Name   string `bun:"name,pk"`
	Value  string `bun:"value,pk"`
}

type timerRow struct {
	bun.BaseModel `bun:"table:case_timers"`

	CaseID     string    `bun:"case_id,pk"`
	PlanItemID string    `bun:"plan_item_id,pk"`
	DueAt      time.Time `bun:"due_at"`
}

// Identifier is a business identifier of a case.
type Identifier struct {
	Name, Value string
}

// CaseWrite is everything one command changes about a case.
type CaseWrite struct {
	// Record describes the case after the command; Record.Version is the
	// version the command read (0 for a new case).
	Record CaseRecord
	State  *engine.Case
	// Events are the command's events; the last one has sequence number
	// State.Sequence.
	Events []engine.Event
	User   string
	At     time.Time
	// CorrelationID is stored with every event of the write.
	CorrelationID string
	Identifiers   []Identifier
	Timers        []engine.Timer
	// Before, when set, is the case as the command found it: only the read
	// rows that differ are written. Without it every read row is rewritten.
	Before *ReadState
	// MaxFileSize, when above zero, bounds the case file's JSON in bytes:
	// a larger one fails the write with a *FileTooLargeError.
	MaxFileSize int
}

// FileTooLargeError refuses a case file whose JSON is over the limit.
type FileTooLargeError struct{ Size, Limit int }

func (e *FileTooLargeError) Error() string {
	return fmt.Sprintf("the case file would be %d bytes, over the limit of %d", e.Size, e.Limit)
}

// ReadState is what a case's read rows are made of.
type ReadState struct {
	State       *engine.Case
	Identifiers []Identifier
	Timers      []engine.Timer
}

// SaveCase stores a case after a command: the case row with its snapshot
// (inserted for a new case, or ErrExists; else updated only when its
// version is still the one read, or ErrStaleVersion), the command's events,
// and every read table of the case. It returns the new version.
//
// All of it is one stmtBatch: one round trip on PostgreSQL. A new case's
// rows, outside a transaction, go with those of the cases started at the
// same time (writeNewCases). An update's case row goes last, so that the
// rows it matched are the batch's count.
func SaveCase(ctx context.Context, idb bun.IDB, w CaseWrite) (int64, error) {
	snapshot, err := json.Marshal(w.State)
	if err != nil {
		return 0, fmt.Errorf("db: encode case: %w", err)
	}
	rec := w.Record
	row := caseRow{ID: rec.ID, Tenant: rec.Tenant, Name: rec.Name, DefinitionName: rec.DefinitionName, DefinitionHash: rec.DefinitionHash,
		State: rec.State, Failures: rec.Failures, ParentCaseID: rec.ParentCaseID, RootCaseID: rec.RootCaseID,
		CreatedOn: rec.CreatedOn, CreatedBy: rec.CreatedBy, LastModified: rec.LastModified, ModifiedBy: rec.ModifiedBy,
		Version: rec.Version + 1, Snapshot: string(snapshot)}
	after, err := buildReadRows(rec, ReadState{State: w.State, Identifiers: w.Identifiers, Timers: w.Timers})
	if err != nil {
		return 0, err
	}
	if file := after.files[0].Data; w.MaxFileSize > 0 && len(file) > w.MaxFileSize {
		return 0, &FileTooLargeError{Size: len(file), Limit: w.MaxFileSize}
	}
	if rec.Version == 0 {
		events, err := eventBatchOf(rec.ID, w)
		if err != nil {
			return 0, err
		}
		err = writeNewCases(ctx, idb, newCaseRows(row, events, after))
		switch {
		case err != nil && isCaseIDTaken(err):
			return 0, ErrExists
		case err != nil:
			return 0, fmt.Errorf("db: save case: %w", err)
		}
		cases.keep(row.ID, row.Version, row.Snapshot, w.State.CloneStored())
		return row.Version, nil
	}
	b := newStmtBatch(idb)
	// Name and definition change only when the case is migrated to
	// another definition; writing them always keeps one path.
	update := idb.NewUpdate().Model(&row).Column(caseUpdateColumns...).WherePK().Where("version = ?", rec.Version)
	if b.multi {
		// First, so that a command that lost the race to another stops
		// there, and guarded, so that its other writes go with it even
		// where the batch is a transaction of its own (no lock held).
		b.addPrepared("update case", updateCaseWrite, []caseRow{row}, guardedCaseUpdate(idb, update, rec.ID, rec.Version), rec.Version)
	}
	if err := addEvents(b, rec.ID, w); err != nil {
		return 0, err
	}
	switch {
	case w.Before != nil:
		before, err := buildReadRows(rec, *w.Before)
		if err != nil {
			return 0, err
		}
		addReadRowChanges(b, rec.ID, before, after)
	default:
		addReadRowDeletes(b, rec.ID, allTables)
		addReadRows(b, after, allTables)
	}
	if !b.multi {
		// SQLite runs the statements one by one in the command's
		// transaction: the last one's count is the version check.
		b.add("update case", update)
	}
	n, err := b.exec(ctx)
	switch {
	case err != nil && (isStaleCaseWrite(err) || isEventSeqTaken(err)):
		// Another command on the case committed since this one read it:
		// the guarded update found another version, or the event row of
		// the sequence numbers this command read as next is there already.
		// Other unique violations are not races and stay errors.
		return 0, ErrStaleVersion
	case err != nil:
		return 0, fmt.Errorf("db: save case: %w", err)
	case !b.multi && n == 0:
		return 0, ErrStaleVersion
	}
	cases.keep(row.ID, row.Version, row.Snapshot, w.State.CloneStored())
	return row.Version, nil
}

// guardedCaseUpdate is update, the case row's update with its version
// check, as a query that fails (SQLSTATE CG409, see migration 00019) when
// it wrote no row: the plain form of updateCaseWrite.
func guardedCaseUpdate(idb bun.IDB, update *bun.UpdateQuery, id string, readVersion int64) *bun.SelectQuery {
	return idb.NewSelect().With("written", update.Returning("1")).TableExpr("written").
		ColumnExpr("casegraph_case_written(count(*), ?, ?)", id, readVersion)
}

// isStaleCaseWrite reports whether err is the guarded case update
// (guardedCaseUpdate) finding the case at another version than read.
func isStaleCaseWrite(err error) bool {
	return err != nil && strings.Contains(err.Error(), "SQLSTATE "+staleCaseWriteCode)
}

// staleCaseWriteCode is the SQLSTATE of casegraph_case_written's error.
const staleCaseWriteCode = "CG409"

// isEventSeqTaken reports whether err is the event rows' key refusing a
// second row of a case with the same first sequence number.
func isEventSeqTaken(err error) bool {
	msg := err.Error()
	return IsUniqueViolation(err) && (strings.Contains(msg, `"case_event_batches_pkey"`) || strings.Contains(msg, "case_event_batches.case_id"))
}

// isCaseIDTaken reports whether err is the cases table refusing a second
// row with an id: PostgreSQL names the key, SQLite the column.
func isCaseIDTaken(err error) bool {
	msg := err.Error()
	return IsUniqueViolation(err) && (strings.Contains(msg, `"cases_pkey"`) || strings.Contains(msg, "cases.id"))
}

// LoadCase returns a case's record and state.
func LoadCase(ctx context.Context, idb bun.IDB, id string) (CaseRecord, *engine.Case, error) {
	return loadCase(ctx, idb, id, "")
}

// LoadCaseForUpdate is LoadCase that also locks the case row until the
// transaction ends (on PostgreSQL; SQLite's write transactions already
// exclude each other), so that commands on one case queue instead of
// failing their version check.
func LoadCaseForUpdate(ctx context.Context, tx bun.Tx, flavor Dialect, id string) (CaseRecord, *engine.Case, error) {
	lock := ""
	if flavor == Postgres {
		lock = "UPDATE"
	}
	return loadCase(ctx, tx, id, lock)
}

// LockAndLoadCase locks case id's tree, its root first as every command on
// a tree does (LockCaseRoot), and loads the case locked: LoadCaseForUpdate,
// or with nowait LoadCaseIfFree (ErrLocked when another transaction holds
// either). A case that is its own root, most of them, takes one statement:
// it is loaded and locked only if it is a root; a sub case, or none, falls
// to the two steps.
func LockAndLoadCase(ctx context.Context, tx bun.Tx, flavor Dialect, id string, nowait bool) (CaseRecord, *engine.Case, error) {
	lock := ""
	if flavor == Postgres {
		lock = "UPDATE"
		if nowait {
			lock = "UPDATE NOWAIT"
		}
	}
	rec, c, err := loadCaseWhere(ctx, tx, id, lock, "root_case_id = id OR root_case_id = ''")
	if errors.Is(err, ErrNotFound) {
		if _, err = LockCaseRoot(ctx, tx, flavor, id, nowait); err == nil || errors.Is(err, ErrNotFound) {
			rec, c, err = loadCase(ctx, tx, id, lock)
		}
	}
	if lockNotAvailable(err) {
		return CaseRecord{}, nil, ErrLocked
	}
	return rec, c, err
}

// lockNotAvailable reports whether err is PostgreSQL's refusal to wait for
// a row lock (NOWAIT).
func lockNotAvailable(err error) bool {
	return err != nil && strings.Contains(err.Error(), "55P03")
}

// LockAndLoadCaseAs is LockAndLoadCase, waiting for the lock, that also
// reads userID's account in the case's tenant, nil when the user has none
// there: for a case that is its own root, one statement where a command
// took two (a sub case has its root locked first, then the account read).
func LockAndLoadCaseAs(ctx context.Context, tx bun.Tx, flavor Dialect, id, userID string) (CaseRecord, *engine.Case, *TenantUser, error) {
	rec, c, acct, err := caseAs(ctx, tx, lockedRootCaseAndAccount, id, userID)
	if !errors.Is(err, ErrNotFound) {
		return rec, c, acct, err
	}
	rec, c, err = LockAndLoadCase(ctx, tx, flavor, id, false)
	if err != nil {
		return CaseRecord{}, nil, nil, err
	}
	a, err := GetTenantUser(ctx, tx, rec.Tenant, userID)
	if errors.Is(err, ErrNotFound) {
		return rec, c, nil, nil
	}
	if err != nil {
		return CaseRecord{}, nil, nil, err
	}
	return rec, c, &a, nil
}

// LoadCaseAs is LoadCase that also reads userID's account in the case's
// tenant (nil when the user has none there), in one statement, without a
// lock: the read of a query, and of a command on a root case that writes
// with SaveCase's check of the version it read instead of holding the
// case's lock.
func LoadCaseAs(ctx context.Context, idb bun.IDB, id, userID string) (CaseRecord, *engine.Case, *TenantUser, error) {
	return caseAs(ctx, idb, caseAndAccount, id, userID)
}

func caseAs(ctx context.Context, idb bun.IDB, stmt *dialectStatement, id, userID string) (CaseRecord, *engine.Case, *TenantUser, error) {
	var rows []struct {
		caseRow
		accountColumns
	}
	if err := stmt.scan(ctx, idb, &rows, userID, id); err != nil {
		return CaseRecord{}, nil, nil, fmt.Errorf("db: select case and account: %w", err)
	}
	if len(rows) == 0 {
		return CaseRecord{}, nil, nil, ErrNotFound
	}
	row := rows[0]
	c, err := decodeSnapshot(ctx, row.caseRow)
	if err != nil {
		return CaseRecord{}, nil, nil, err
	}
	return row.record(), c, row.account(row.Tenant), nil
}

// accountColumns are an account and its roles read beside other rows, in
// a LEFT JOIN of tenant_users AS u (accountSelect).
type accountColumns struct {
	AccountUserID  sql.NullString `bun:"account_user_id"`
	AccountName    sql.NullString `bun:"account_name"`
	AccountEmail   sql.NullString `bun:"account_email"`
	AccountIsOwner sql.NullBool   `bun:"account_is_owner"`
	AccountEnabled sql.NullBool   `bun:"account_enabled"`
	AccountRoles   sql.NullString `bun:"account_roles"`
}

// accountSelect lists accountColumns from u, the roles joined by
// roleSeparator with agg: string_agg on PostgreSQL, group_concat on SQLite.
func accountSelect(flavor Dialect) string {
	agg := "string_agg(r.role, chr(31))"
	if flavor != Postgres {
		agg = "group_concat(r.role, char(31))"
	}
	return `u.user_id AS account_user_id, u.name AS account_name,
	u.email AS account_email, u.is_owner AS account_is_owner, u.enabled AS account_enabled,
	(SELECT ` + agg + ` FROM tenant_user_roles AS r WHERE r.tenant = u.tenant AND r.user_id = u.user_id) AS account_roles`
}

// account is the account read, in tenant; nil when there was none.
func (a accountColumns) account(tenant string) *TenantUser {
	if !a.AccountUserID.Valid {
		return nil
	}
	var roles []string
	if a.AccountRoles.String != "" {
		roles = strings.Split(a.AccountRoles.String, roleSeparator)
	}
	u := newTenantUser(tenantUserRow{Tenant: tenant, UserID: a.AccountUserID.String, Name: a.AccountName.String,
		Email: a.AccountEmail.String, IsOwner: a.AccountIsOwner.Bool, Enabled: a.AccountEnabled.Bool}, roles)
	return &u
}

// roleSeparator joins an account's roles in one column: a control
// character, which no role name may hold (service.checkIdentifier refuses
// them when a tenant user is written).
const roleSeparator = "\x1f"

// caseAndAccount is a case with one account in its tenant and the
// account's roles joined; lockedRootCaseAndAccount is a root case, locked
// (SQLite locks nothing): a sub case is locked after its root.
var caseAndAccount, lockedRootCaseAndAccount = caseAndAccountStatement(false), caseAndAccountStatement(true)

func caseAndAccountStatement(locked bool) *dialectStatement {
	return newDialectStatement(func(idb bun.IDB, flavor Dialect) string {
		cond := ""
		if locked {
			cond = " AND (case_row.root_case_id = case_row.id OR case_row.root_case_id = '')"
			if flavor == Postgres {
				cond += " FOR UPDATE OF case_row"
			}
		}
		return "SELECT " + modelColumns(idb, reflect.TypeFor[caseRow]()) + ", " + accountSelect(flavor) + `
	FROM cases AS case_row LEFT JOIN tenant_users AS u ON u.tenant = case_row.tenant AND u.user_id = ?
	WHERE case_row.id = ?` + cond
	})
}

// LoadCaseIfFree is LoadCaseForUpdate that does not wait: when another
// transaction holds the case it returns ErrLocked. The timer worker, which
// already holds a timer row a command on the case may want, uses it so
// that the two never wait on each other.
func LoadCaseIfFree(ctx context.Context, tx bun.Tx, flavor Dialect, id string) (CaseRecord, *engine.Case, error) {
	lock := ""
	if flavor == Postgres {
		lock = "UPDATE NOWAIT"
	}
	rec, c, err := loadCase(ctx, tx, id, lock)
	if lockNotAvailable(err) {
		return CaseRecord{}, nil, ErrLocked
	}
	return rec, c, err
}

// ErrLocked is returned when a row is held by another transaction and
// the caller chose not to wait.
var ErrLocked = errors.New("db: locked by another transaction")

func loadCase(ctx context.Context, idb bun.IDB, id string, lock string) (CaseRecord, *engine.Case, error) {
	return loadCaseWhere(ctx, idb, id, lock, "")
}

// caseStatements are the few ways a case row is read by id (with or
// without a lock, whether or not it must be a root), one statement each.
var caseStatements sync.Map // lock + "\x00" + cond → *modelStatement[caseRow]

func caseStatement(lock, cond string) *modelStatement[caseRow] {
	key := lock + "\x00" + cond
	if s, ok := caseStatements.Load(key); ok {
		return s.(*modelStatement[caseRow])
	}
	rest := "WHERE id = ?"
	if cond != "" {
		rest += " AND (" + cond + ")"
	}
	if lock != "" {
		rest += " FOR " + lock
	}
	s, _ := caseStatements.LoadOrStore(key, selectModel[caseRow](rest))
	return s.(*modelStatement[caseRow])
}

func loadCaseWhere(ctx context.Context, idb bun.IDB, id, lock, cond string) (CaseRecord, *engine.Case, error) {
	var row caseRow
	err := caseStatement(lock, cond).scan(ctx, idb, &row, id)
	if errors.Is(err, sql.ErrNoRows) {
		return CaseRecord{}, nil, ErrNotFound
	}
	if err != nil {
		return CaseRecord{}, nil, fmt.Errorf("db: select case: %w", err)
	}
	c, err := decodeSnapshot(ctx, row)
	if err != nil {
		return CaseRecord{}, nil, err
	}
	return row.record(), c, nil
}

func decodeSnapshot(ctx context.Context, row caseRow) (*engine.Case, error) {
	if err := chargeStateBudget(ctx, len(row.Snapshot)); err != nil {
		return nil, err
	}
	if c, ok := cases.state(row); ok {
		if verifyCachedCase {
			checkCachedCase(row, c)
		}
		return c, nil
	}
	var c engine.Case
	// Not json.Unmarshal(data, &c): that scans the snapshot twice (to
	// validate it, then to find the end of the value it hands to
	// UnmarshalJSON) before UnmarshalJSON decodes it, which checks it
	// again; a tenth of the server's CPU in a claim + complete load went
	// to decoding snapshots (BenchmarkDecodeCase).
	if err := c.UnmarshalJSON([]byte(row.Snapshot)); err != nil {
		return nil, fmt.Errorf("db: decode case %s: %w", row.ID, err)
	}
	return &c, nil
}

// CaseExists reports whether a case (or any actor) id is taken.
func CaseExists(ctx context.Context, idb bun.IDB, id string) (bool, error) {
	return idb.NewSelect().Model((*caseRow)(nil)).Where("id = ?", id).Exists(ctx)
}

// UserTenantRoles returns the roles of an enabled account of userID in
// tenant; none when there is no such account.
func UserTenantRoles(ctx context.Context, idb bun.IDB, tenant, userID string) ([]string, error) {
	var roles []string
	err := idb.NewSelect().TableExpr("tenant_user_roles AS r").ColumnExpr("r.role").
		Join("JOIN tenant_users AS u ON u.tenant = r.tenant AND u.user_id = r.user_id").
		Where("r.tenant = ? AND r.user_id = ? AND u.enabled", tenant, userID).
		Order("r.role").Scan(ctx, &roles)
	if err != nil {
		return nil, fmt.Errorf("db: select user tenant roles: %w", err)
	}
	return roles, nil
}

// maxCaseDepth bounds the walk up a case tree: a sub case chain deeper
// than this is a corrupt parent link, not a model.
const maxCaseDepth = 64

// CaseAncestors returns the ids of a case's parent chain, the root first,
// the case itself last.
func CaseAncestors(ctx context.Context, idb bun.IDB, id string) ([]string, error) {
	chain := []string{id}
	for cur := id; len(chain) < maxCaseDepth; {
		var parent string
		err := idb.NewSelect().Model((*caseRow)(nil)).Column("parent_case_id").Where("id = ?", cur).Scan(ctx, &parent)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && parent == "") {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("db: select parent case: %w", err)
		}
		chain = append([]string{parent}, chain...)
		cur = parent
	}
	return chain, nil
}
