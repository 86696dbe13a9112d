package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// Definition is the current version of a definition in a tenant's
// repository.
type Definition struct {
	Tenant      string
	Name        string // file name, with .xml
	Hash        string // hex SHA-256 of the XML
	CaseName    string
	Description string
	DeployedAt  time.Time
	DeployedBy  string
	Version     int64 // 1 for the first deployment, +1 for each one after
}

type definitionDocumentRow struct {
	bun.BaseModel `bun:"table:definition_documents"`

	Hash      string    `bun:"hash,pk"`
	XML       string    `bun:"xml"`
	CreatedAt time.Time `bun:"created_at"`
}

type definitionRow struct {
	bun.BaseModel `bun:"table:definitions"`

	Tenant      string    `bun:"tenant,pk"`
	Name        string    `bun:"name,pk"`
	Hash        string    `bun:"hash"`
	CaseName    string    `bun:"case_name"`
	Description string    `bun:"description"`
	DeployedAt  time.Time `bun:"deployed_at"`
	DeployedBy  string    `bun:"deployed_by"`
	Version     int64     `bun:"version"`
}

type definitionDeploymentRow struct {
	bun.BaseModel `bun:"table:definition_deployments"`

	Tenant     string    `bun:"tenant,pk"`
	Name       string    `bun:"name,pk"`
	Version    int64     `bun:"version,pk"`
	Hash       string    `bun:"hash"`
	DeployedAt time.Time `bun:"deployed_at"`
	DeployedBy string    `bun:"deployed_by"`
}

// SaveDocument stores an XML document under its hash; storing the same
// document again is a no-op.
func SaveDocument(ctx context.Context, idb bun.IDB, hash, xml string, now time.Time) error {
	row := definitionDocumentRow{Hash: hash, XML: xml, CreatedAt: now}
	if _, err := idb.NewInsert().Model(&row).On("CONFLICT (hash) DO NOTHING").Exec(ctx); err != nil {
		return fmt.Errorf("db: insert definition document: %w", err)
	}
	return nil
}

// Document returns the XML stored under hash.
func Document(ctx context.Context, idb bun.IDB, hash string) (string, error) {
	var row definitionDocumentRow
	err := idb.NewSelect().Model(&row).Where("hash = ?", hash).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("db: select definition document: %w", err)
	}
	return row.XML, nil
}

// DeployDefinition makes d the current version of its name and records the
// deployment. The document must be saved first. It returns d with its new
// version; a redeploy of the current hash changes nothing and returns the
// current record.
func DeployDefinition(ctx context.Context, idb bun.IDB, d Definition) (Definition, error) {
	current, err := GetDefinition(ctx, idb, d.Tenant, d.Name)
	switch {
	case errors.Is(err, ErrNotFound):
		d.Version = 1
		row := toDefinitionRow(d)
		res, err := idb.NewInsert().Model(&row).On("CONFLICT (tenant, name) DO NOTHING").Exec(ctx)
		if err != nil {
			return Definition{}, fmt.Errorf("db: insert definition: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return Definition{}, ErrStaleVersion // deployed concurrently
		}
	case err != nil:
		return Definition{}, err
	case current.Hash == d.Hash:
		return current, nil
	default:
		d.Version = current.Version + 1
		row := toDefinitionRow(d)
		res, err := idb.NewUpdate().Model(&row).
			Column("hash", "case_name", "description", "deployed_at", "deployed_by", "version").
			WherePK().Where("version = ?", current.Version).Exec(ctx)
		if err != nil {
			return Definition{}, fmt.Errorf("db: update definition: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return Definition{}, ErrStaleVersion
		}
	}
	dep := definitionDeploymentRow{Tenant: d.Tenant, Name: d.Name, Version: d.Version, Hash: d.Hash, DeployedAt: d.DeployedAt, DeployedBy: d.DeployedBy}
	if _, err := idb.NewInsert().Model(&dep).Exec(ctx); err != nil {
		return Definition{}, fmt.Errorf("db: insert definition deployment: %w", err)
	}
	return d, nil
}

var definitionByName = selectModel[definitionRow]("WHERE tenant = ? AND name = ?")

// GetDefinition returns the current version of a definition.
func GetDefinition(ctx context.Context, idb bun.IDB, tenant, name string) (Definition, error) {
	var row definitionRow
	err := definitionByName.scan(ctx, idb, &row, tenant, name)
	if errors.Is(err, sql.ErrNoRows) {
		return Definition{}, ErrNotFound
	}
	if err != nil {
		return Definition{}, fmt.Errorf("db: select definition: %w", err)
	}
	return fromDefinitionRow(row), nil
}

// Definitions returns the current definitions of a tenant, ordered by name.
func Definitions(ctx context.Context, idb bun.IDB, tenant string) ([]Definition, error) {
	var rows []definitionRow
	if err := idb.NewSelect().Model(&rows).Where("tenant = ?", tenant).Order("name").Scan(ctx); err != nil {
		return nil, fmt.Errorf("db: select definitions: %w", err)
	}
	out := make([]Definition, len(rows))
	for i, r := range rows {
		out[i] = fromDefinitionRow(r)
	}
	return out, nil
}

func toDefinitionRow(d Definition) definitionRow {
	return definitionRow{Tenant: d.Tenant, Name: d.Name, Hash: d.Hash, CaseName: d.CaseName, Description: d.Description,
		DeployedAt: d.DeployedAt, DeployedBy: d.DeployedBy, Version: d.Version}
}

func fromDefinitionRow(r definitionRow) Definition {
	return Definition{Tenant: r.Tenant, Name: r.Name, Hash: r.Hash, CaseName: r.CaseName, Description: r.Description,
		DeployedAt: r.DeployedAt, DeployedBy: r.DeployedBy, Version: r.Version}
}

// Documents returns the XML of each hash that is stored.
func Documents(ctx context.Context, idb bun.IDB, hashes []string) (map[string]string, error) {
	out := make(map[string]string, len(hashes))
	if len(hashes) == 0 {
		return out, nil
	}
	var rows []definitionDocumentRow
	if err := idb.NewSelect().Model(&rows).Where("hash IN (?)", bun.List(hashes)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("db: select definition documents: %w", err)
	}
	for _, r := range rows {
		out[r.Hash] = r.XML
	}
	return out, nil
}
