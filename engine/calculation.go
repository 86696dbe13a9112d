package engine

import (
	"fmt"

	"github.com/casegraph/casegraph/engine/cmmn"
)

// calculate runs a calculation process over its inputs and returns its
// outputs by name. Steps run when a value they compute is needed, in
// whatever order they are written: a value is a process input or the
// result of the first step computing it whose condition holds (none: no
// value). A value that needs itself is an error.
func (r *run) calculate(p *PlanItem, proc *cmmn.Process, inputs map[string]any) (map[string]any, error) {
	c := calculator{r: r, p: p, steps: map[string][]*cmmn.CalculationStep{}, values: map[string]any{}, busy: map[string]bool{}, inputs: map[string]bool{}}
	for _, s := range proc.Calculation().Steps {
		c.steps[s.Output] = append(c.steps[s.Output], s)
	}
	for _, in := range proc.Inputs() {
		c.inputs[in.Name()] = true
	}
	for name, v := range inputs {
		c.inputs[name] = true
		if _, computed := c.steps[name]; !computed {
			c.values[name] = v
		}
	}
	out := map[string]any{}
	for _, o := range proc.Outputs() {
		v, err := c.value(o.Name())
		if err != nil {
			return nil, fmt.Errorf("the calculation of %s failed: %v", o.Name(), err)
		}
		out[o.Name()] = v
	}
	return out, nil
}

type calculator struct {
	r      *run
	p      *PlanItem
	steps  map[string][]*cmmn.CalculationStep
	values map[string]any
	busy   map[string]bool
	inputs map[string]bool
}

func (c *calculator) value(name string) (any, error) {
	if v, ok := c.values[name]; ok {
		return v, nil
	}
	steps := c.steps[name]
	if len(steps) == 0 {
		if c.inputs[name] {
			return nil, nil
		}
		return nil, fmt.Errorf("'%s' is neither an input of the process nor the output of a step", name)
	}
	if c.busy[name] {
		return nil, fmt.Errorf("'%s' depends on itself", name)
	}
	c.busy[name] = true
	defer delete(c.busy, name)
	var result any
	for _, s := range steps {
		vars := map[string]any{}
		for _, in := range s.Inputs {
			v, err := c.value(in.Source)
			if err != nil {
				return nil, err
			}
			vars[in.As] = v
		}
		if s.Condition != nil {
			ok, err := s.Condition.EvalBool(c.r.exprEnv(c.p, vars))
			if err != nil {
				return nil, fmt.Errorf("the condition of step '%s': %v", name, err)
			}
			if !ok {
				continue
			}
		}
		v, err := c.step(s, vars)
		if err != nil {
			return nil, fmt.Errorf("step '%s': %v", name, err)
		}
		result = v
		break
	}
	c.values[name] = result
	return result, nil
}

// step evaluates one step: once, or for each element of its list input.
func (c *calculator) step(s *cmmn.CalculationStep, vars map[string]any) (any, error) {
	if s.Expression == nil {
		return nil, fmt.Errorf("no expression")
	}
	if s.Kind == cmmn.StepPlain {
		v, err := s.Expression.Eval(c.r.exprEnv(c.p, vars))
		return canonical(v), err
	}
	if len(s.Inputs) == 0 {
		return nil, fmt.Errorf("a %s step needs the list it works on as its input", s.Kind)
	}
	in := s.Inputs[0].As
	var list []any
	switch x := vars[in].(type) {
	case nil:
	case []any:
		list = x
	default:
		list = []any{x}
	}
	out := []any{}
	for _, e := range list {
		elemVars := make(map[string]any, len(vars))
		for k, v := range vars {
			elemVars[k] = v
		}
		elemVars[in] = e
		env := c.r.exprEnv(c.p, elemVars)
		if s.Kind == cmmn.StepFilter {
			ok, err := s.Expression.EvalBool(env)
			if err != nil {
				return nil, err
			}
			if ok {
				out = append(out, e)
			}
			continue
		}
		v, err := s.Expression.Eval(env)
		if err != nil {
			return nil, err
		}
		out = append(out, canonical(v))
	}
	return out, nil
}
