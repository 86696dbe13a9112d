package resolvers

import (
	"github.com/casegraph/casegraph/model"
	"github.com/casegraph/casegraph/service"
)

func toDefinition(d service.Definition) *model.Definition {
	out := &model.Definition{
		Name: d.Name, Tenant: d.Tenant, Version: int(d.Version), Hash: d.Hash,
		DeployedAt: d.DeployedAt.At.UTC(), DeployedBy: d.DeployedBy,
		CaseName: d.CaseName, Documentation: d.Documentation, CaseRoles: d.CaseRoles, XML: d.XML,
		InputParameters: []*model.InputParameter{},
	}
	if out.CaseRoles == nil {
		out.CaseRoles = []string{}
	}
	for _, in := range d.Inputs {
		p := &model.InputParameter{Name: in.Name}
		if in.CaseFileItem != "" {
			p.CaseFileItem = &in.CaseFileItem
		}
		out.InputParameters = append(out.InputParameters, p)
	}
	return out
}
