package engine

// autoComplete completes an active stage (or the case plan) once nothing
// in it can still happen on its own (§4.1): no child is Active and every
// child is semi-terminal, or with autoComplete every required child; and,
// without autoComplete, nothing is left to plan.
func (r *run) autoComplete(stage *PlanItem) error {
	if stage.State != Active {
		return nil
	}
	def := r.definition(stage)
	if def == nil || def.Stage() == nil {
		return nil
	}
	s := def.Stage()
	for _, ch := range r.children(stage) {
		if ch.State == Active {
			return nil
		}
		if !isSemiTerminal(ch.State) && (!s.AutoComplete() || ch.Required) {
			return nil
		}
	}
	if !s.AutoComplete() && r.plannable(stage, s) {
		return nil
	}
	_, err := r.transition(stage, Complete, "")
	return err
}

// canCompleteManually reports whether a user may complete the stage: no
// child Active and every required child semi-terminal. Discretionary items
// do not stand in the way.
func (r *run) canCompleteManually(stage *PlanItem) bool {
	for _, ch := range r.children(stage) {
		if ch.State == Active || (ch.Required && !isSemiTerminal(ch.State)) {
			return false
		}
	}
	return true
}
