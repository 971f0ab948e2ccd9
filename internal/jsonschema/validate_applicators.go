package jsonschema

// applicators checks the keywords that apply other schemas to the same
// value.
func (vd *validator) applicators(n *node, v *value, ev *evaluated) *ValidationError {
	if n.recursiveRef != nil {
		target := n.recursiveRef
		if target.res.recursiveAnchor && target.res.root == target {
			for _, r := range vd.scope {
				if r.recursiveAnchor {
					target = r.root
					break
				}
			}
		}
		if err := vd.follow(target, v, ev, "$recursiveRef"); err != nil {
			return err
		}
	}
	if n.dynamicRef != nil {
		target := n.dynamicRef
		if n.dynamicName != "" {
			for _, r := range vd.scope {
				if t, ok := r.dynamic[n.dynamicName]; ok {
					target = t
					break
				}
			}
		}
		if err := vd.follow(target, v, ev, "$dynamicRef"); err != nil {
			return err
		}
	}
	if n.not != nil && vd.quietly(func() *ValidationError { return vd.validate(n.not, v, nil, "not") }) {
		return vd.failf("not", "value matches the schema it must not match")
	}
	for _, s := range n.allOf {
		if err := vd.validate(s, v, ev, "allOf"); err != nil {
			return err
		}
	}
	if n.anyOf != nil {
		if err := vd.anyOf(n, v, ev); err != nil {
			return err
		}
	}
	if n.oneOf != nil {
		if err := vd.oneOf(n, v, ev); err != nil {
			return err
		}
	}
	if n.ifSchema != nil {
		var branch *evaluated
		if ev != nil {
			branch = newEvaluated(v)
		}
		if vd.quietly(func() *ValidationError { return vd.validate(n.ifSchema, v, branch, "if") }) {
			ev.merge(branch)
			if n.thenSchema != nil {
				return vd.validate(n.thenSchema, v, ev, "then")
			}
		} else if n.elseSchema != nil {
			return vd.validate(n.elseSchema, v, ev, "else")
		}
	}
	return nil
}

// anyOf passes when a subschema does; all are tried when annotations
// count. Its violation is the first subschema's.
func (vd *validator) anyOf(n *node, v *value, ev *evaluated) *ValidationError {
	passed := false
	for _, s := range n.anyOf {
		var branch *evaluated
		if ev != nil {
			branch = newEvaluated(v)
		}
		if vd.quietly(func() *ValidationError { return vd.validate(s, v, branch, "anyOf") }) {
			passed = true
			ev.merge(branch)
			if ev == nil {
				break
			}
		}
	}
	switch {
	case passed:
		return nil
	case vd.quiet:
		return vd.fail("anyOf", nil)
	}
	return vd.validate(n.anyOf[0], v, nil, "anyOf") // again, to say where
}

// oneOf passes when exactly one subschema does. With none, its violation
// is the first subschema's.
func (vd *validator) oneOf(n *node, v *value, ev *evaluated) *ValidationError {
	first := -1
	var firstEv *evaluated
	for i, s := range n.oneOf {
		var branch *evaluated
		if ev != nil {
			branch = newEvaluated(v)
		}
		if vd.quietly(func() *ValidationError { return vd.validate(s, v, branch, "oneOf") }) {
			if first >= 0 {
				return vd.failf("oneOf", "matches subschemas %d and %d, want exactly one", first, i)
			}
			first, firstEv = i, branch
		}
	}
	switch {
	case first < 0 && vd.quiet:
		return vd.fail("oneOf", nil)
	case first < 0:
		return vd.validate(n.oneOf[0], v, nil, "oneOf") // again, to say where
	}
	ev.merge(firstEv)
	return nil
}

// unevaluated applies unevaluatedProperties and unevaluatedItems to what
// nothing else evaluated.
func (vd *validator) unevaluated(n *node, v *value, ev *evaluated) *ValidationError {
	switch {
	case n.unevaluatedProperties != nil && v.kind == kindObject:
		for i := range v.obj {
			if !ev.marks[i] {
				if err := vd.at(n.unevaluatedProperties, &v.obj[i].val, token{name: v.obj[i].key, index: -1}, "unevaluatedProperties"); err != nil {
					return err
				}
			}
		}
		ev.markFrom(0)
	case n.unevaluatedItems != nil && v.kind == kindArray:
		for i := range v.arr {
			if !ev.marks[i] {
				if err := vd.at(n.unevaluatedItems, &v.arr[i], token{index: i}, "unevaluatedItems"); err != nil {
					return err
				}
			}
		}
		ev.markFrom(0)
	}
	return nil
}
