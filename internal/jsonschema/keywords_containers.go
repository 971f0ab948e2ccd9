package jsonschema

import "regexp"

// container compiles the keywords of arrays and objects; false for another
// keyword.
func (k *keywords) container(key string, v *value) (_ bool, err error) {
	d := k.loc.d
	n := k.n
	switch key {
	// Arrays.
	case "items":
		if d < draft2020 && v.kind == kindArray {
			list, err := k.schemaList(key, v)
			n.prefixItems, k.itemsList = list, v
			return true, err
		}
		n.items, err = k.sub(key, v)
		n.itemsKeyword = "items"
		return true, err
	case "prefixItems":
		n.prefixItems, err = k.schemaList(key, v)
		return true, err
	case "additionalItems":
		if d >= draft2020 {
			return true, nil
		}
		if _, err := k.sub(key, v); err != nil {
			return true, err
		}
		k.additionalItems = v
		return true, nil
	case "maxItems":
		return true, k.count(key, v, &n.maxItems)
	case "minItems":
		return true, k.count(key, v, &n.minItems)
	case "uniqueItems":
		if err := k.want(key, v, "a boolean", kindTrue, kindFalse); err != nil {
			return true, err
		}
		n.uniqueItems = v.kind == kindTrue
		return true, nil
	case "contains":
		n.contains, err = k.sub(key, v)
		return true, err
	case "maxContains":
		return true, k.count(key, v, &n.maxContains)
	case "minContains":
		return true, k.count(key, v, &n.minContains)
	case "unevaluatedItems", "unevaluatedProperties":
		s, err := k.sub(key, v)
		if key == "unevaluatedItems" {
			n.unevaluatedItems = s
		} else {
			n.unevaluatedProperties = s
		}
		k.c.tracked = true
		return true, err

	// Objects.
	case "maxProperties":
		return true, k.count(key, v, &n.maxProperties)
	case "minProperties":
		return true, k.count(key, v, &n.minProperties)
	case "required":
		n.required, err = k.names(key, v, d == draft4)
		return true, err
	case "properties":
		m, err := k.schemaMap(key, v)
		n.properties = m
		if len(m) > 8 {
			n.propertyIndex = make(map[string]*node, len(m))
			for _, p := range m {
				n.propertyIndex[p.name] = p.node
			}
		}
		return true, err
	case "patternProperties":
		if v.kind == kindObject {
			for i := range v.obj {
				re, why, err := compilePattern(v.obj[i].key)
				if err != nil {
					return true, k.failAt(key, v.obj[i].key, "%s is not a valid regular expression: %s", quote(v.obj[i].key), regexpError(err))
				}
				if why != "" {
					// A property name this pattern would match is taken
					// by additionalProperties instead: say so.
					k.c.unchecked = append(k.c.unchecked, k.loc.ptr.plus(key, v.obj[i].key)+": "+why+" (no property name is taken to match it)")
					re = regexp.MustCompile(`[^\x{0}-\x{10FFFF}]`)
				}
				s, err := k.sub(key, &v.obj[i].val, v.obj[i].key)
				if err != nil {
					return true, err
				}
				n.patternProperties = append(n.patternProperties, patterned{re, s})
			}
			return true, nil
		}
		_, err := k.schemaMap(key, v)
		return true, err
	case "additionalProperties":
		s, err := k.sub(key, v)
		if v.kind == kindFalse {
			n.noMoreProperties = true
		} else {
			n.additionalProperties = s // true too: it evaluates the members
		}
		return true, err
	case "propertyNames":
		n.propertyNames, err = k.sub(key, v)
		return true, err
	case "dependencies":
		if v.kind != kindObject {
			return true, k.fail(key, "got %s, want an object", v.typeName())
		}
		for i := range v.obj {
			m := &v.obj[i]
			dep := dependency{name: m.key}
			if m.val.kind == kindArray {
				names, err := k.names(key, &m.val, d == draft4, m.key)
				if err != nil {
					return true, err
				}
				dep.required = names
			} else {
				s, err := k.sub(key, &m.val, m.key)
				if err != nil {
					return true, err
				}
				dep.schema = s
			}
			n.dependencies = append(n.dependencies, dep)
		}
		return true, nil
	case "dependentSchemas":
		n.dependentSchemas, err = k.schemaMap(key, v)
		return true, err
	case "dependentRequired":
		if v.kind != kindObject {
			return true, k.fail(key, "got %s, want an object", v.typeName())
		}
		for i := range v.obj {
			names, err := k.names(key, &v.obj[i].val, false, v.obj[i].key)
			if err != nil {
				return true, err
			}
			n.dependentRequired = append(n.dependentRequired, dependency{name: v.obj[i].key, required: names})
		}
		return true, nil
	}
	return false, nil
}
