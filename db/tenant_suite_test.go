package db_test

import (
	"slices"
	"testing"
	"time"

	"github.com/casegraph/casegraph/db"
)

func exerciseTenants(t *testing.T, open func(t *testing.T) *db.DB) {
	t.Run("CreateAndGet", func(t *testing.T) {
		d := setup(t, open)
		err := db.CreateTenant(ctx, d, db.Tenant{Name: "acme", Enabled: false, CreatedAt: t0, LastModified: t0}, nil)
		wantErr(t, "create an existing tenant", err, db.ErrExists)
		tn, err := db.GetTenant(ctx, d, "acme")
		must(t, err)
		if !tn.Enabled || tn.Version != 1 || tn.CreatedBy != "admin" || !tn.CreatedAt.Equal(t0) {
			t.Errorf("tenant acme: %+v", tn)
		}
		_, err = db.GetTenant(ctx, d, "nope")
		wantErr(t, "get an unknown tenant", err, db.ErrNotFound)
	})

	t.Run("EnableDisableWithVersion", func(t *testing.T) {
		d := setup(t, open)
		tn, err := db.GetTenant(ctx, d, "other")
		must(t, err)
		later := t0.Add(time.Hour)
		off, err := db.TouchTenant(ctx, d, tn, false, "admin", later)
		must(t, err)
		if off.Version != 2 || off.Enabled {
			t.Errorf("after disabling: %+v", off)
		}
		_, err = db.TouchTenant(ctx, d, tn, true, "admin", later)
		wantErr(t, "touch with the version read before", err, db.ErrStaleVersion)
		stored, err := db.GetTenant(ctx, d, "other")
		must(t, err)
		if stored.Enabled || stored.Version != 2 || stored.ModifiedBy != "admin" || !stored.LastModified.Equal(later) {
			t.Errorf("stored tenant: %+v", stored)
		}
		// A disabled tenant's accounts are not the user's accounts.
		accounts, err := db.UserAccounts(ctx, d, "alice")
		must(t, err)
		if len(accounts) != 1 || accounts[0].Tenant != "acme" || !slices.Equal(accounts[0].Roles, []string{"Clerk"}) {
			t.Errorf("alice's accounts with other disabled: %+v", accounts)
		}
		if _, err := db.TouchTenant(ctx, d, off, true, "admin", later); err != nil {
			t.Fatal(err)
		}
		accounts, err = db.UserAccounts(ctx, d, "alice")
		must(t, err)
		if len(accounts) != 2 || accounts[0].Tenant != "acme" || accounts[1].Tenant != "other" {
			t.Errorf("alice's accounts with other enabled again: %+v", accounts)
		}
	})

	t.Run("Users", func(t *testing.T) {
		d := setup(t, open)
		users, err := db.TenantUsers(ctx, d, "acme")
		must(t, err)
		var ids []string
		for _, u := range users {
			ids = append(ids, u.UserID)
		}
		wantIDs(t, "acme's users by id", ids, []string{"alice", "bob", "carl", "dave"})
		if users[2].Enabled || !users[0].IsOwner || users[3].Roles == nil || len(users[3].Roles) != 0 {
			t.Errorf("acme's users: %+v", users)
		}
		must(t, db.UpsertTenantUser(ctx, d, db.TenantUser{Tenant: "acme", UserID: "bob", Name: "Robert", Email: "b@x", Enabled: true,
			Roles: []string{"Manager", "Auditor"}}))
		bob, err := db.GetTenantUser(ctx, d, "acme", "bob")
		must(t, err)
		if bob.Name != "Robert" || bob.Email != "b@x" || !slices.Equal(bob.Roles, []string{"Auditor", "Manager"}) {
			t.Errorf("bob after upsert: %+v", bob)
		}
		if n := count(t, d, "tenant_user_roles", "tenant = ? AND user_id = ?", "acme", "bob"); n != 2 {
			t.Errorf("bob has %d role rows, want 2", n)
		}
		must(t, db.DeleteTenantUser(ctx, d, "acme", "bob"))
		_, err = db.GetTenantUser(ctx, d, "acme", "bob")
		wantErr(t, "get a deleted user", err, db.ErrNotFound)
		if n := count(t, d, "tenant_user_roles", "tenant = ? AND user_id = ?", "acme", "bob"); n != 0 {
			t.Errorf("a deleted user keeps %d role rows", n)
		}
		must(t, db.DeleteTenantUser(ctx, d, "acme", "nobody"))

		roles, err := db.UsersTenantRoles(ctx, d, "acme", []string{"alice", "carl", "dave", "nobody"})
		must(t, err)
		if len(roles) != 2 || !slices.Equal(roles["alice"], []string{"Clerk"}) || roles["dave"] == nil || len(roles["dave"]) != 0 {
			t.Errorf("UsersTenantRoles (carl disabled, dave without roles): %v", roles)
		}
		r, err := db.UserTenantRoles(ctx, d, "acme", "carl")
		must(t, err)
		if len(r) != 0 {
			t.Errorf("a disabled account's roles: %v", r)
		}
		tenants, err := db.UsersTenants(ctx, d, []string{"alice", "dave"})
		must(t, err)
		slices.Sort(tenants["alice"])
		if !slices.Equal(tenants["alice"], []string{"acme", "other"}) || !slices.Equal(tenants["dave"], []string{"acme"}) {
			t.Errorf("UsersTenants: %v", tenants)
		}
	})

	t.Run("StartChecks", func(t *testing.T) {
		d := setup(t, open)
		must(t, db.UpsertTenantUser(ctx, d, db.TenantUser{Tenant: "acme", UserID: "eve", Enabled: true, Roles: []string{"Zeta", "Alpha", "Mid"}}))
		_, err := db.DeployDefinition(ctx, d, db.Definition{Tenant: "acme", Name: "claims.xml", Hash: docHash, DeployedAt: t0})
		must(t, err)
		// The caller's account comes with the checks: roles sorted, a
		// disabled one as such, none as nil.
		check, err := db.StartChecks(ctx, d, "case-1", "acme", "claims.xml", "eve")
		must(t, err)
		if check.Retired || len(check.Tenants) != 1 || !check.Tenants["acme"] || check.DefinitionHash != docHash || check.DefinitionName != "claims.xml" {
			t.Errorf("checks of a start in acme: %+v", check)
		}
		if a := check.Account; a == nil || a.UserID != "eve" || a.Tenant != "acme" || !a.Enabled || !slices.Equal(a.Roles, []string{"Alpha", "Mid", "Zeta"}) {
			t.Errorf("eve's account: %+v", a)
		}
		check, err = db.StartChecks(ctx, d, "other", "acme", "nope.xml", "carl")
		must(t, err)
		if len(check.Tenants) != 2 || check.DefinitionHash != "" || check.Account == nil || check.Account.Enabled ||
			!slices.Equal(check.Account.Roles, []string{"Clerk"}) {
			t.Errorf("checks of id other, carl (disabled), an unknown definition: %+v %+v", check, check.Account)
		}
		check, err = db.StartChecks(ctx, d, "case-1", "acme", "claims.xml", "stranger")
		must(t, err)
		if check.Account != nil || check.DefinitionHash != docHash {
			t.Errorf("checks for a caller without an account: %+v", check)
		}
		check, err = db.StartChecks(ctx, d, "case-1", "acme", "claims.xml", "dave")
		must(t, err)
		if a := check.Account; a == nil || !a.Enabled || a.Roles == nil || len(a.Roles) != 0 {
			t.Errorf("dave's account, without roles: %+v", a)
		}
	})

	t.Run("OwnerOrder", func(t *testing.T) {
		d := setup(t, open)
		// Owners are listed in the order they were added, not by id.
		must(t, db.CreateTenant(ctx, d, db.Tenant{Name: "zoo", Enabled: true, CreatedAt: t0, LastModified: t0}, []db.TenantUser{
			{UserID: "zed", IsOwner: true, Enabled: true}, {UserID: "amy", IsOwner: true, Enabled: true},
			{UserID: "kim", IsOwner: true, Enabled: false}, {UserID: "lou", Enabled: true},
		}))
		owners, err := db.TenantOwners(ctx, d, "zoo")
		must(t, err)
		wantIDs(t, "owners in order of addition, disabled left out", owners, []string{"zed", "amy"})
		must(t, db.UpsertTenantUser(ctx, d, db.TenantUser{Tenant: "zoo", UserID: "bea", IsOwner: true, Enabled: true}))
		must(t, db.UpsertTenantUser(ctx, d, db.TenantUser{Tenant: "zoo", UserID: "lou", IsOwner: true, Enabled: true}))
		owners, err = db.TenantOwners(ctx, d, "zoo")
		must(t, err)
		wantIDs(t, "owners after adding bea and making lou owner", owners, []string{"zed", "amy", "lou", "bea"})
		// Replacing the list keeps the place of those who stay.
		must(t, db.ReplaceTenantUsers(ctx, d, "zoo", []db.TenantUser{
			{UserID: "new", IsOwner: true, Enabled: true}, {UserID: "bea", IsOwner: true, Enabled: true}, {UserID: "zed", IsOwner: true, Enabled: true},
		}))
		owners, err = db.TenantOwners(ctx, d, "zoo")
		must(t, err)
		wantIDs(t, "owners after replacing the list", owners, []string{"zed", "bea", "new"})
		if n := count(t, d, "tenant_users", "tenant = ?", "zoo"); n != 3 {
			t.Errorf("zoo has %d users after the replace, want 3", n)
		}
	})
}
