package jsonschema

import "fmt"

// missing lists the names not among the members of v.
func missing(v *value, names []string) []string {
	var out []string
	for _, name := range names {
		if v.member(name) == nil {
			out = append(out, name)
		}
	}
	return out
}

func (vd *validator) object(n *node, v *value, ev *evaluated) *ValidationError {
	if n.minProperties >= 0 && len(v.obj) < n.minProperties {
		return vd.failf("minProperties", "got %d properties, want at least %d", len(v.obj), n.minProperties)
	}
	if n.maxProperties >= 0 && len(v.obj) > n.maxProperties {
		return vd.failf("maxProperties", "got %d properties, want at most %d", len(v.obj), n.maxProperties)
	}
	if absent := missing(v, n.required); absent != nil {
		if vd.quiet {
			return vd.fail("required", nil)
		}
		err := vd.failf("required", "missing properties %s", quoteAll(absent))
		if len(absent) == 1 {
			err.Message = "missing property " + quote(absent[0])
		}
		err.Missing = absent
		return err
	}
	for _, dep := range n.dependencies {
		if err := vd.dependency(dep, v, ev, "dependencies"); err != nil {
			return err
		}
	}
	var extra []string
	for i := range v.obj {
		m := &v.obj[i]
		t := token{name: m.key, index: -1}
		matched := false
		if p := n.property(m.key); p != nil {
			matched = true
			if err := vd.at(p, &m.val, t, "properties"); err != nil {
				return err
			}
		}
		for _, pp := range n.patternProperties {
			if pp.re.MatchString(m.key) {
				matched = true
				if err := vd.at(pp.node, &m.val, t, "patternProperties"); err != nil {
					return err
				}
			}
		}
		if !matched {
			switch {
			case n.additionalProperties != nil:
				matched = true
				if err := vd.at(n.additionalProperties, &m.val, t, "additionalProperties"); err != nil {
					return err
				}
			case n.noMoreProperties:
				if vd.quiet {
					return vd.fail("additionalProperties", nil)
				}
				extra = append(extra, m.key)
			}
		}
		if matched {
			ev.mark(i)
		}
	}
	if extra != nil {
		return vd.failf("additionalProperties", "additional properties %s not allowed", quoteAll(extra))
	}
	if n.propertyNames != nil && !n.propertyNames.empty {
		for i := range v.obj {
			name := value{kind: kindString, str: v.obj[i].key}
			if !vd.quietly(func() *ValidationError { return vd.validate(n.propertyNames, &name, nil, "propertyNames") }) {
				return vd.fail("propertyNames", func() string {
					inner := *vd
					inner.quiet, inner.failed = false, nil
					why := inner.validate(n.propertyNames, &name, nil, "propertyNames")
					return fmt.Sprintf("invalid property name %s: %s", quote(name.str), why.Message)
				})
			}
		}
	}
	for _, dep := range n.dependentSchemas {
		if v.member(dep.name) != nil {
			if err := vd.validate(dep.node, v, ev, "dependentSchemas"); err != nil {
				return err
			}
		}
	}
	for _, dep := range n.dependentRequired {
		if err := vd.dependency(dep, v, ev, "dependentRequired"); err != nil {
			return err
		}
	}
	return nil
}

// property is the schema properties gives a member, nil when none.
func (n *node) property(name string) *node {
	if n.propertyIndex != nil {
		return n.propertyIndex[name]
	}
	for _, p := range n.properties {
		if p.name == name {
			return p.node
		}
	}
	return nil
}

func (vd *validator) dependency(dep dependency, v *value, ev *evaluated, keyword string) *ValidationError {
	if v.member(dep.name) == nil {
		return nil
	}
	if dep.schema != nil {
		return vd.validate(dep.schema, v, ev, keyword)
	}
	absent := missing(v, dep.required)
	if absent == nil {
		return nil
	}
	err := vd.failf(keyword, "properties %s required, if %s exists", quoteAll(absent), quote(dep.name))
	if !vd.quiet {
		err.Missing = absent
	}
	return err
}

func (vd *validator) array(n *node, v *value, ev *evaluated) *ValidationError {
	if n.minItems >= 0 && len(v.arr) < n.minItems {
		return vd.failf("minItems", "got %d items, want at least %d", len(v.arr), n.minItems)
	}
	if n.maxItems >= 0 && len(v.arr) > n.maxItems {
		return vd.failf("maxItems", "got %d items, want at most %d", len(v.arr), n.maxItems)
	}
	if n.uniqueItems {
		if i, j := duplicate(v.arr); i >= 0 {
			return vd.failf("uniqueItems", "items at %d and %d are equal", i, j)
		}
	}
	prefix := min(len(n.prefixItems), len(v.arr))
	for i := range prefix {
		via := "prefixItems"
		if n.d < draft2020 {
			via = "items"
		}
		if err := vd.at(n.prefixItems[i], &v.arr[i], token{index: i}, via); err != nil {
			return err
		}
		ev.mark(i)
	}
	if n.items != nil {
		for i := prefix; i < len(v.arr); i++ {
			if err := vd.at(n.items, &v.arr[i], token{index: i}, n.itemsKeyword); err != nil {
				return err
			}
		}
		ev.markFrom(prefix)
	} else if n.noMoreItems && len(v.arr) > prefix {
		return vd.failf("additionalItems", "got %d items, want at most %d (no additional items)", len(v.arr), prefix)
	}
	if n.contains != nil {
		matches := 0
		var matched []bool
		if ev != nil && n.d >= draft2020 {
			matched = make([]bool, len(v.arr))
		}
		for i := range v.arr {
			vd.path = append(vd.path, token{index: i})
			ok := vd.quietly(func() *ValidationError { return vd.validate(n.contains, &v.arr[i], nil, "contains") })
			vd.path = vd.path[:len(vd.path)-1]
			if ok {
				matches++
				if matched != nil {
					matched[i] = true
				}
			}
		}
		want := max(n.minContains, 0)
		if n.minContains < 0 {
			want = 1
		}
		switch {
		case matches < want && n.minContains < 0:
			return vd.failf("contains", "no items match the contains schema")
		case matches < want:
			return vd.failf("minContains", "%d items match the contains schema, want at least %d", matches, want)
		case n.maxContains >= 0 && matches > n.maxContains:
			return vd.failf("maxContains", "%d items match the contains schema, want at most %d", matches, n.maxContains)
		}
		for i, m := range matched {
			if m {
				ev.mark(i)
			}
		}
	}
	return nil
}
