package jsonschema

// assertion compiles the keywords that apply to any value, to numbers and
// to strings; false for another keyword.
func (k *keywords) assertion(key string, v *value) (_ bool, err error) {
	d := k.loc.d
	n := k.n
	switch key {
	// Any instance.
	case "type":
		return true, k.typeKeyword(v)
	case "enum":
		if v.kind != kindArray {
			return true, k.fail(key, "got %s, want an array", v.typeName())
		}
		if d == draft4 { // from draft-06 on, both are SHOULDs
			if len(v.arr) == 0 {
				return true, k.fail(key, "want at least one value")
			}
			if i, j := duplicate(v.arr); i >= 0 {
				return true, k.fail(key, "values %d and %d are equal, want unique values", i, j)
			}
		}
		n.enum = v
		return true, nil
	case "const":
		n.constVal = v
		return true, nil
	case "allOf", "anyOf", "oneOf":
		list, err := k.schemaList(key, v)
		switch key {
		case "allOf":
			n.allOf = list
		case "anyOf":
			n.anyOf = list
		default:
			n.oneOf = list
		}
		return true, err
	case "not":
		n.not, err = k.sub(key, v)
		return true, err
	case "if", "then", "else":
		if _, err := k.sub(key, v); err != nil {
			return true, err
		}
		switch key {
		case "if":
			k.ifVal = v
		case "then":
			k.thenVal = v
		default:
			k.elseVal = v
		}
		return true, nil

	// Numbers.
	case "multipleOf":
		dec, err := k.number(key, v)
		if err != nil {
			return true, err
		}
		if dec.isZero() || dec.neg {
			return true, k.fail(key, "got %s, want a number greater than 0", v.str)
		}
		n.multipleOf = &dec
		return true, nil
	case "maximum", "minimum":
		dec, err := k.number(key, v)
		if key == "maximum" {
			n.maximum = &dec
		} else {
			n.minimum = &dec
		}
		return true, err
	case "exclusiveMaximum", "exclusiveMinimum":
		if d == draft4 {
			if err := k.want(key, v, "a boolean", kindTrue, kindFalse); err != nil {
				return true, err
			}
			other := "maximum"
			if key == "exclusiveMinimum" {
				other = "minimum"
				k.exclusiveMinimum4 = v.kind == kindTrue
			} else {
				k.exclusiveMaximum4 = v.kind == kindTrue
			}
			if k.v.member(other) == nil {
				return true, k.fail(key, "needs %s beside it", other)
			}
			return true, nil
		}
		dec, err := k.number(key, v)
		if key == "exclusiveMaximum" {
			n.exclusiveMaximum = &dec
		} else {
			n.exclusiveMinimum = &dec
		}
		return true, err

	// Strings.
	case "maxLength":
		return true, k.count(key, v, &n.maxLength)
	case "minLength":
		return true, k.count(key, v, &n.minLength)
	case "pattern":
		if err := k.want(key, v, "a string", kindString); err != nil {
			return true, err
		}
		re, why, err := compilePattern(v.str)
		if err != nil {
			return true, k.fail(key, "%s is not a valid regular expression: %s", quote(v.str), regexpError(err))
		}
		if why != "" {
			k.c.unchecked = append(k.c.unchecked, k.loc.ptr.plus(key)+": "+why)
		}
		n.pattern = re
		return true, nil

	}
	return false, nil
}
