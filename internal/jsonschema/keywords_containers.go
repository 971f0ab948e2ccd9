package jsonschema

import "regexp"

// container compiles the keywords of arrays and objects; any other
// keyword is ignored.
func (k *keywords) container(key string, v *value) (err error) {
	d := k.loc.d
	n := k.n
	switch key {
	// Arrays.
	case "items":
		if d < draft2020 && v.kind == kindArray {
			list, err := k.schemaList(key, v)
			n.prefixItems, k.itemsList = list, v
			return err
		}
		n.items, err = k.sub(key, v)
		n.itemsKeyword = "items"
	case "prefixItems":
		n.prefixItems, err = k.schemaList(key, v)
	case "additionalItems":
		if d >= draft2020 {
			return nil
		}
		_, err = k.sub(key, v)
		k.additionalItems = v
	case "maxItems":
		return k.count(key, v, &n.maxItems)
	case "minItems":
		return k.count(key, v, &n.minItems)
	case "uniqueItems":
		err = k.want(key, v, "a boolean", kindTrue, kindFalse)
		n.uniqueItems = v.kind == kindTrue
	case "contains":
		n.contains, err = k.sub(key, v)
	case "maxContains":
		return k.count(key, v, &n.maxContains)
	case "minContains":
		return k.count(key, v, &n.minContains)
	case "unevaluatedItems":
		n.unevaluatedItems, err = k.sub(key, v)
		k.c.tracked = true
	case "unevaluatedProperties":
		n.unevaluatedProperties, err = k.sub(key, v)
		k.c.tracked = true

	// Objects.
	case "maxProperties":
		return k.count(key, v, &n.maxProperties)
	case "minProperties":
		return k.count(key, v, &n.minProperties)
	case "required":
		n.required, err = k.names(key, v, d == draft4)
	case "properties":
		n.properties, err = k.schemaMap(key, v)
		if len(n.properties) > 8 {
			n.propertyIndex = make(map[string]*node, len(n.properties))
			for _, p := range n.properties {
				n.propertyIndex[p.name] = p.node
			}
		}
	case "patternProperties":
		if v.kind == kindObject {
			for i := range v.obj {
				re, why, err := compilePattern(v.obj[i].key)
				if err != nil {
					return k.failAt(key, v.obj[i].key, "%s is not a valid regular expression: %s", quote(v.obj[i].key), regexpError(err))
				}
				if why != "" {
					// A property name this pattern would match is taken
					// by additionalProperties instead: say so.
					k.c.unchecked = append(k.c.unchecked, k.loc.ptr.plus(key, v.obj[i].key)+": "+why+" (no property name is taken to match it)")
					re = regexp.MustCompile(`[^\x{0}-\x{10FFFF}]`)
				}
				s, err := k.sub(key, &v.obj[i].val, v.obj[i].key)
				if err != nil {
					return err
				}
				n.patternProperties = append(n.patternProperties, patterned{re, s})
			}
			return nil
		}
		_, err = k.schemaMap(key, v)
	case "additionalProperties":
		s, err := k.sub(key, v)
		if v.kind == kindFalse {
			n.noMoreProperties = true
		} else {
			n.additionalProperties = s // true too: it evaluates the members
		}
		return err
	case "propertyNames":
		n.propertyNames, err = k.sub(key, v)
	case "dependencies":
		if v.kind != kindObject {
			return k.fail(key, "got %s, want an object", v.typeName())
		}
		for i := range v.obj {
			m := &v.obj[i]
			dep := dependency{name: m.key}
			if m.val.kind == kindArray {
				names, err := k.names(key, &m.val, d == draft4, m.key)
				if err != nil {
					return err
				}
				dep.required = names
			} else {
				s, err := k.sub(key, &m.val, m.key)
				if err != nil {
					return err
				}
				dep.schema = s
			}
			n.dependencies = append(n.dependencies, dep)
		}
	case "dependentSchemas":
		n.dependentSchemas, err = k.schemaMap(key, v)
	case "dependentRequired":
		if v.kind != kindObject {
			return k.fail(key, "got %s, want an object", v.typeName())
		}
		for i := range v.obj {
			names, err := k.names(key, &v.obj[i].val, false, v.obj[i].key)
			if err != nil {
				return err
			}
			n.dependentRequired = append(n.dependentRequired, dependency{name: v.obj[i].key, required: names})
		}
	default:
		return nil // any other keyword is ignored
	}
	return err
}
