package service

import (
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/uptrace/bun"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/engine/cmmn"
)

// MaxDefinitionSize bounds a definition document.
const MaxDefinitionSize = 10 << 20

// Definition is a deployed case definition with what a client needs to
// start a case of it.
type Definition struct {
	Tenant        string
	Name          string // file name, with .xml
	Hash          string
	Version       int64
	DeployedAt    LastModified
	DeployedBy    string
	CaseName      string
	Documentation string
	CaseRoles     []string
	Inputs        []InputParameter
	XML           string
}

// InputParameter is a case input parameter and the case file item it binds
// to.
type InputParameter struct {
	Name         string
	CaseFileItem string
}

// ValidateDefinition parses and validates a definition document and
// returns every problem found; none means valid. Anyone may ask: it reads
// nothing stored.
func (s *Service) ValidateDefinition(xml []byte) []string {
	if len(xml) > MaxDefinitionSize {
		return []string{"The definition is larger than 10 MiB"}
	}
	defs, err := s.definitions.parse(xml)
	if err != nil {
		return problemsOf(err)
	}
	return unrunnableProcessTasks(defs)
}

func problemsOf(err error) []string {
	if err == nil {
		return nil
	}
	var ve *cmmn.ValidationError
	if errors.As(err, &ve) {
		return ve.Problems
	}
	return []string{err.Error()}
}

// ListDefinitions returns the definitions deployed to the tenant, resolved
// as the reference engine does (see repositoryTenant). Any enabled user of
// the tenant may list them.
func (s *Service) ListDefinitions(ctx context.Context, who auth.Identity, tenant *string) ([]Definition, error) {
	const op = "service.ListDefinitions"
	t, _, err := s.repositoryTenant(ctx, s.db, op, who, tenant)
	if err != nil {
		return nil, err
	}
	defs, err := db.Definitions(ctx, s.db, t)
	if err != nil {
		return nil, wrap(op, err)
	}
	hashes := make([]string, len(defs))
	for i, d := range defs {
		hashes[i] = d.Hash
	}
	docs, err := db.Documents(ctx, s.db, hashes)
	if err != nil {
		return nil, wrap(op, err)
	}
	out := make([]Definition, 0, len(defs))
	for _, d := range defs {
		def, err := s.describeStored(d, docs[d.Hash])
		if err != nil {
			return nil, wrap(op, err)
		}
		out = append(out, def)
	}
	return out, nil
}

// describeStored describes a stored definition from its record and XML.
func (s *Service) describeStored(d db.Definition, xml string) (Definition, error) {
	parsed, err := s.definitions.get(d.Hash, []byte(xml))
	if err != nil {
		return Definition{}, fmt.Errorf("stored definition %s of tenant %s no longer parses: %w", d.Name, d.Tenant, err)
	}
	def := describeDefinition(parsed)
	def.Tenant, def.Name, def.Hash, def.Version, def.XML = d.Tenant, d.Name, d.Hash, d.Version, xml
	def.DeployedAt, def.DeployedBy = LastModified{At: d.DeployedAt, ID: d.Name}, d.DeployedBy
	return def, nil
}

// LoadDefinition returns one deployed definition with its XML. Any enabled
// user of the tenant may load it.
func (s *Service) LoadDefinition(ctx context.Context, who auth.Identity, tenant *string, name string) (Definition, error) {
	const op = "service.LoadDefinition"
	t, _, err := s.repositoryTenant(ctx, s.db, op, who, tenant)
	if err != nil {
		return Definition{}, err
	}
	return s.loadDefinition(ctx, s.db, op, t, name)
}

func (s *Service) loadDefinition(ctx context.Context, idb bun.IDB, op, tenant, name string) (Definition, error) {
	fileName := definitionFileName(name)
	d, err := db.GetDefinition(ctx, idb, tenant, fileName)
	if errors.Is(err, db.ErrNotFound) {
		return Definition{}, Ef(op, NotFound, "A model with name %s cannot be found", fileName)
	}
	if err != nil {
		return Definition{}, wrap(op, err)
	}
	xml, err := db.Document(ctx, idb, d.Hash)
	if err != nil {
		return Definition{}, wrap(op, err)
	}
	def, err := s.describeStored(d, xml)
	if err != nil {
		return Definition{}, &InvalidDefinitionError{Err: &Error{Op: op, Kind: Internal, Err: err}, Problems: problemsOf(errors.Unwrap(err))}
	}
	return def, nil
}

// DeployDefinition validates a definition and makes it the current version
// of name in the tenant. Tenant owners only. Invalid documents are refused
// with every problem in the error's cause.
func (s *Service) DeployDefinition(ctx context.Context, who auth.Identity, tenant *string, name string, xml []byte) (Definition, error) {
	const op = "service.DeployDefinition"
	fileName := definitionFileName(name)
	if err := s.checkIdentifier(op, "definition name", fileName); err != nil {
		return Definition{}, err
	}
	if err := checkDefinitionName(fileName); err != nil {
		return Definition{}, Ef(op, Invalid, "Cannot deploy %s: %v", fileName, err)
	}
	if len(xml) > MaxDefinitionSize {
		return Definition{}, Ef(op, Invalid, "Cannot deploy %s: the definition is larger than 10 MiB", fileName)
	}
	parsed, err := s.definitions.parse(xml)
	problems := problemsOf(err)
	if err == nil {
		problems = unrunnableProcessTasks(parsed)
	}
	if len(problems) > 0 {
		return Definition{}, &InvalidDefinitionError{Err: &Error{Op: op, Kind: Invalid,
			Msg: "Cannot deploy " + fileName + ": definition is invalid."}, Problems: problems}
	}
	hash := hashOf(xml)
	s.definitions.put(hash, parsed)
	var result Definition
	err = s.command(ctx, op, func(ctx context.Context, tx bun.Tx) error {
		t, u, err := s.repositoryTenant(ctx, tx, op, who, tenant)
		if err != nil {
			return err
		}
		if !u.IsOwner {
			return Ef(op, NotAllowed, "User '%s' does not have the privileges to deploy a definition", who.UserID)
		}
		now := s.now()
		if err := db.SaveDocument(ctx, tx, hash, string(xml), now); err != nil {
			return err
		}
		info := describeDefinition(parsed)
		d, err := db.DeployDefinition(ctx, tx, db.Definition{Tenant: t, Name: fileName, Hash: hash, CaseName: info.CaseName,
			Description: info.Documentation, DeployedAt: now, DeployedBy: who.UserID})
		if err != nil {
			return err
		}
		info.Tenant, info.Name, info.Hash, info.Version, info.XML = t, d.Name, d.Hash, d.Version, string(xml)
		info.DeployedAt, info.DeployedBy = LastModified{At: d.DeployedAt, ID: d.Name}, d.DeployedBy
		result = info
		return nil
	})
	return result, err
}

// InvalidDefinitionError is the Invalid error of a refused deployment; it
// carries every problem found.
type InvalidDefinitionError struct {
	Err      *Error
	Problems []string
}

func (e *InvalidDefinitionError) Error() string {
	return e.Err.Error() + ": " + strings.Join(e.Problems, "; ")
}

func (e *InvalidDefinitionError) Unwrap() error { return e.Err }

// repositoryTenant resolves the tenant of a repository request as the
// reference engine does: the named tenant (blank: the default tenant); with
// none named, the caller's only tenant, else the default tenant if the
// caller is in it. The caller must be an enabled user of the tenant.
func (s *Service) repositoryTenant(ctx context.Context, idb bun.IDB, op string, who auth.Identity, tenant *string) (string, TenantUser, error) {
	var name string
	switch {
	case tenant != nil && strings.TrimSpace(*tenant) != "":
		name = strings.TrimSpace(*tenant)
	case tenant != nil:
		name = s.defaultTenant
	default:
		accounts, err := db.UserAccounts(ctx, idb, who.UserID)
		if err != nil {
			return "", TenantUser{}, wrap(op, err)
		}
		var enabled []TenantUser
		for _, a := range accounts {
			if a.Enabled {
				enabled = append(enabled, a)
			}
		}
		switch {
		case len(enabled) == 0:
			return "", TenantUser{}, Ef(op, NotAllowed, "User '%s' is not registered in a tenant", who.UserID)
		case len(enabled) == 1:
			name = enabled[0].Tenant
		default:
			name = ""
			for _, a := range enabled {
				if a.Tenant == s.defaultTenant {
					name = a.Tenant
				}
			}
			if name == "" {
				return "", TenantUser{}, E(op, Invalid, "Tenant property must have a value, because user belongs to multiple tenants")
			}
		}
	}
	_, u, err := tenantAccount(ctx, idb, op, who, name, ActiveTenantNotFound(op, name))
	if err != nil {
		return "", TenantUser{}, err
	}
	return name, u, nil
}

// definitionFileName appends .xml when missing, as the reference engine
// does.
func definitionFileName(name string) string {
	name = strings.TrimSpace(name)
	if !strings.HasSuffix(name, ".xml") {
		name += ".xml"
	}
	return name
}

// checkDefinitionName accepts names like "helloworld.xml" and
// "casetask/chain.xml": relative, no empty or dot segments.
func checkDefinitionName(name string) error {
	if len(name) > 255 {
		return errors.New("the name is longer than 255 characters")
	}
	if name == ".xml" {
		return errors.New("the name is empty")
	}
	for _, seg := range strings.Split(name, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return errors.New("the name must be a relative path without empty, '.' or '..' parts")
		}
		for _, r := range seg {
			if r < ' ' || r == 0x7f || strings.ContainsRune(`\:*?"<>|`, r) {
				return errors.New("the name contains a character that is not allowed")
			}
		}
	}
	return nil
}

func hashOf(xml []byte) string {
	sum := sha256.Sum256(xml)
	return hex.EncodeToString(sum[:])
}

// describeDefinition lists what a client needs of a definition's main case.
func describeDefinition(d *cmmn.Definitions) Definition {
	c := d.Main()
	info := Definition{CaseName: c.Name(), Documentation: c.Documentation(), CaseRoles: []string{}, Inputs: []InputParameter{}}
	for _, r := range c.Roles() {
		info.CaseRoles = append(info.CaseRoles, r.Name())
	}
	for _, p := range c.Inputs() {
		in := InputParameter{Name: p.Name()}
		if b := p.Binding(); b != nil {
			in.CaseFileItem = b.Name()
		}
		info.Inputs = append(info.Inputs, in)
	}
	return info
}

// definitionCache keeps parsed definitions by content hash. Entries never
// go stale (a hash names one document), so replicas may each keep their
// own; the least recently used entry goes when the cache is full.
type definitionCache struct {
	mu    sync.Mutex
	max   int
	order *list.List // of *cacheEntry, most recent first
	byKey map[string]*list.Element
}

type cacheEntry struct {
	hash string
	defs *cmmn.Definitions
}

func newDefinitionCache(max int) *definitionCache {
	return &definitionCache{max: max, order: list.New(), byKey: make(map[string]*list.Element)}
}

// parse parses and validates xml, using the cache.
func (c *definitionCache) parse(xml []byte) (*cmmn.Definitions, error) {
	return c.get(hashOf(xml), xml)
}

// get returns the parsed document with the given hash, parsing xml on a
// miss.
func (c *definitionCache) get(hash string, xml []byte) (*cmmn.Definitions, error) {
	c.mu.Lock()
	if e, ok := c.byKey[hash]; ok {
		c.order.MoveToFront(e)
		defs := e.Value.(*cacheEntry).defs
		c.mu.Unlock()
		return defs, nil
	}
	c.mu.Unlock()
	defs, err := cmmn.Parse(xml)
	if err != nil {
		return nil, err
	}
	c.put(hash, defs)
	return defs, nil
}

// cached returns the parsed document with the given hash, if cached.
func (c *definitionCache) cached(hash string) (*cmmn.Definitions, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[hash]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*cacheEntry).defs, true
}

func (c *definitionCache) put(hash string, defs *cmmn.Definitions) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byKey[hash]; ok {
		c.order.MoveToFront(e)
		return
	}
	c.byKey[hash] = c.order.PushFront(&cacheEntry{hash: hash, defs: defs})
	for c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.byKey, last.Value.(*cacheEntry).hash)
	}
}
