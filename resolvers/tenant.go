package resolvers

import (
	"context"

	"github.com/casegraph/casegraph/model"
	"github.com/casegraph/casegraph/service"
)

func (r *mutationResolver) setTenantEnabled(ctx context.Context, name string, enabled bool) (bool, error) {
	who, err := caller(ctx)
	if err != nil {
		return false, err
	}
	if _, err := r.Service.SetTenantEnabled(ctx, who, name, enabled); err != nil {
		return false, err
	}
	return true, nil
}

func (r *tenantResolver) tenantUsers(ctx context.Context, tenant string, enabled bool) ([]*model.TenantUser, error) {
	who, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	users, err := r.Service.TenantUsers(ctx, who, tenant, enabled)
	if err != nil {
		return nil, err
	}
	return toTenantUsers(users), nil
}

func toTenant(t service.Tenant) *model.Tenant {
	return &model.Tenant{Name: t.Name, Enabled: t.Enabled, LastModified: t.LastModified.UTC()}
}

func toTenantUser(u service.TenantUser) *model.TenantUser {
	roles := u.Roles
	if roles == nil {
		roles = []string{}
	}
	return &model.TenantUser{UserID: u.UserID, Tenant: u.Tenant, Name: u.Name, Email: u.Email, Roles: roles, IsOwner: u.IsOwner, Enabled: u.Enabled}
}

func toTenantUsers(users []service.TenantUser) []*model.TenantUser {
	out := make([]*model.TenantUser, len(users))
	for i, u := range users {
		out[i] = toTenantUser(u)
	}
	return out
}

func userInput(u *model.TenantUserInput) service.UserInput {
	return service.UserInput{UserID: u.UserID, Roles: u.Roles, IsOwner: u.IsOwner, Name: u.Name, Email: u.Email, Enabled: u.Enabled}
}

func userInputs(users []*model.TenantUserInput) []service.UserInput {
	out := make([]service.UserInput, len(users))
	for i, u := range users {
		out[i] = userInput(u)
	}
	return out
}
