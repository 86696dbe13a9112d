package db

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/schema"
)

// A preparedWrite is one of the writes every command on a case makes (its
// case row's update, its event row, a changed task or plan item, the
// clearing of a read table), prepared by name (SQL PREPARE) on each
// PostgreSQL connection when it opens. A command's writes leave as one
// multi-statement query in one round trip (stmtBatch), which the extended
// protocol's prepared statements cannot share; EXECUTE can: PostgreSQL
// then parses a short EXECUTE and runs the statement's cached plan, where
// it parsed, analysed and planned each write afresh, a fifth of its time
// per command (planning the case row's update alone took 0.1 ms).
//
// The values are inlined in the EXECUTE as bun inlines them in any
// statement (a nil pointer as NULL where bun's INSERT says DEFAULT: no
// column written here has a default). A connection whose PREPARE failed
// (opened before the migrations made the tables), or that does not
// prepare at all (a pooler, see openPostgres), runs the plain statements
// instead (paramConn), as does one that lost them (SQLSTATE 26000: a
// transaction pooler that moved it to another server connection), once the
// command that found out was run again (ErrRetry).
type preparedWrite struct {
	name   string
	table  *schema.Table
	fields []*schema.Field // the parameters, in order
	text   string          // the statement, $1... in the order of fields
}

// preparedWriteDialect describes the row models for the prepared texts;
// it is PostgreSQL's, the only database that prepares them.
var preparedWriteDialect = pgdialect.New()

// preparedWrites are every prepared write, in the order they are prepared.
var preparedWrites []*preparedWrite

func newPreparedWrite(name string, model any, text func(t *schema.Table) (string, []*schema.Field)) *preparedWrite {
	t := preparedWriteDialect.Tables().Get(reflect.TypeOf(model).Elem())
	body, fields := text(t)
	// The name holds a hash of the text: a connection that kept the
	// statement of another build (a session pooler's) has another name.
	sum := sha256.Sum256([]byte(body))
	w := &preparedWrite{name: "casegraph_" + name + "_" + hex.EncodeToString(sum[:4]), table: t, fields: fields, text: body}
	preparedWrites = append(preparedWrites, w)
	return w
}

// insertAll is an INSERT of every column of a row, with what follows.
func insertAll(then func(t *schema.Table) string) func(t *schema.Table) (string, []*schema.Field) {
	return func(t *schema.Table) (string, []*schema.Field) {
		var cols, params []string
		for i, f := range t.Fields {
			cols = append(cols, string(f.SQLName))
			params = append(params, "$"+strconv.Itoa(i+1))
		}
		text := "INSERT INTO " + string(t.SQLName) + " (" + strings.Join(cols, ", ") + ") VALUES (" + strings.Join(params, ", ") + ")"
		if then != nil {
			text += " " + then(t)
		}
		return text, t.Fields
	}
}

// upsertByKey makes an insert of a row keyed by (case_id, id) write its
// other columns over those of the row it meets.
func upsertByKey(t *schema.Table) string {
	var sets []string
	for _, f := range t.DataFields {
		sets = append(sets, string(f.SQLName)+" = EXCLUDED."+string(f.SQLName))
	}
	return "ON CONFLICT (case_id, id) DO UPDATE SET " + strings.Join(sets, ", ")
}

var (
	updateCaseWrite = newPreparedWrite("update_case", (*caseRow)(nil), func(t *schema.Table) (string, []*schema.Field) {
		var sets []string
		var fields []*schema.Field
		for i, name := range caseUpdateColumns {
			f := fieldNamed(t, name)
			sets = append(sets, name+" = $"+strconv.Itoa(i+1))
			fields = append(fields, f)
		}
		id, read := "$"+strconv.Itoa(len(fields)+1), "$"+strconv.Itoa(len(fields)+2)
		// The version the command read is the last value; the update must
		// write one row or fail the query (guardedCaseUpdate).
		return "WITH written AS (UPDATE cases SET " + strings.Join(sets, ", ") + " WHERE id = " + id + " AND version = " + read +
				" RETURNING 1) SELECT casegraph_case_written(count(*), " + id + ", " + read + ") FROM written",
			append(fields, fieldNamed(t, "id"))
	})
	insertEventsWrite = newPreparedWrite("insert_events", (*caseEventBatchRow)(nil), insertAll(nil))
	upsertTaskWrite   = newPreparedWrite("upsert_task", (*taskRow)(nil), insertAll(upsertByKey))
	upsertItemWrite   = newPreparedWrite("upsert_plan_item", (*planItemRow)(nil), insertAll(upsertByKey))
	insertTimerWrite  = newPreparedWrite("insert_timer", (*timerRow)(nil), insertAll(nil))
	insertFileWrite   = newPreparedWrite("insert_file", (*caseFileRow)(nil), insertAll(nil))
	clearByCaseWrites = map[reflect.Type]*preparedWrite{}
	caseUpdateColumns = []string{"name", "definition_name", "definition_hash", "state", "failures", "last_modified", "modified_by", "version", "snapshot"}
)

func init() {
	for _, model := range []any{(*teamRoleRow)(nil), (*teamGroupRoleRow)(nil), (*teamMemberRow)(nil), (*planItemRow)(nil),
		(*taskRow)(nil), (*caseFileRow)(nil), (*identifierRow)(nil), (*timerRow)(nil)} {
		typ := reflect.TypeOf(model)
		t := preparedWriteDialect.Tables().Get(typ.Elem())
		clearByCaseWrites[typ] = newPreparedWrite("clear_"+t.Name, model, func(t *schema.Table) (string, []*schema.Field) {
			// The case id is its one value, given as an extra.
			return "DELETE FROM " + string(t.SQLName) + " WHERE case_id = $1", nil
		})
	}
}

// fieldNamed is the field of t with SQL name column.
func fieldNamed(t *schema.Table, column string) *schema.Field {
	for _, f := range t.Fields {
		if f.Name == column {
			return f
		}
	}
	panic("db: no column " + column + " in " + t.Name)
}

// prepareWrites prepares on conn the preparedWrites it has not prepared
// yet, and reports whether it has them all. It runs outside a transaction
// (a failing PREPARE would end one).
func prepareWrites(ctx context.Context, conn *pgx.Conn) bool {
	rows, err := conn.Query(ctx, "SELECT name FROM pg_prepared_statements WHERE name LIKE 'casegraph\\_%'")
	if err != nil {
		return false
	}
	have, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return false
	}
	var missing strings.Builder
	for _, w := range preparedWrites {
		if !slices.Contains(have, w.name) {
			missing.WriteString("PREPARE " + w.name + " AS " + w.text + ";\n")
		}
	}
	if missing.Len() == 0 {
		return true
	}
	_, err = conn.Exec(ctx, missing.String())
	return err == nil
}

// appendExecute appends the EXECUTE of w with the values of w's fields in
// row, a pointer to w's row model, then the extra values of the
// parameters that follow (all formatted by gen as bun formats them).
func (w *preparedWrite) appendExecute(gen schema.QueryGen, b []byte, row any, extra ...any) []byte {
	b = append(b, "EXECUTE "...)
	b = append(b, w.name...)
	b = append(b, '(')
	n := 0
	if row != nil {
		v := reflect.ValueOf(row).Elem()
		for _, f := range w.fields {
			if n++; n > 1 {
				b = append(b, ", "...)
			}
			b = f.AppendValue(gen, b, v)
		}
	}
	for _, e := range extra {
		if n++; n > 1 {
			b = append(b, ", "...)
		}
		b = gen.AppendValue(b, reflect.ValueOf(e))
	}
	return append(b, ')')
}
