package jsonschema

// assertion compiles the keywords that apply to any value, to numbers and
// to strings, and hands any other keyword to container.
func (k *keywords) assertion(key string, v *value) (err error) {
	d := k.loc.d
	n := k.n
	switch key {
	// Any instance.
	case "type":
		return k.typeKeyword(v)
	case "enum":
		if v.kind != kindArray {
			return k.fail(key, "got %s, want an array", v.typeName())
		}
		if d == draft4 { // from draft-06 on, both are SHOULDs
			if len(v.arr) == 0 {
				return k.fail(key, "want at least one value")
			}
			if i, j := duplicate(v.arr); i >= 0 {
				return k.fail(key, "values %d and %d are equal, want unique values", i, j)
			}
		}
		n.enum = v
	case "const":
		n.constVal = v
	case "allOf":
		n.allOf, err = k.schemaList(key, v)
	case "anyOf":
		n.anyOf, err = k.schemaList(key, v)
	case "oneOf":
		n.oneOf, err = k.schemaList(key, v)
	case "not":
		n.not, err = k.sub(key, v)
	case "if":
		n.ifSchema, err = k.sub(key, v)
	case "then":
		n.thenSchema, err = k.sub(key, v)
	case "else":
		n.elseSchema, err = k.sub(key, v)

	// Numbers.
	case "multipleOf":
		if n.multipleOf, err = k.number(key, v); err == nil && (n.multipleOf.isZero() || n.multipleOf.neg) {
			return k.fail(key, "got %s, want a number greater than 0", v.str)
		}
	case "maximum":
		n.maximum, err = k.number(key, v)
	case "minimum":
		n.minimum, err = k.number(key, v)
	case "exclusiveMaximum", "exclusiveMinimum":
		if d == draft4 {
			if err := k.want(key, v, "a boolean", kindTrue, kindFalse); err != nil {
				return err
			}
			other := "maximum"
			if key == "exclusiveMinimum" {
				other = "minimum"
				k.exclusiveMinimum4 = v.kind == kindTrue
			} else {
				k.exclusiveMaximum4 = v.kind == kindTrue
			}
			if k.v.member(other) == nil {
				return k.fail(key, "needs %s beside it", other)
			}
			return nil
		}
		if key == "exclusiveMaximum" {
			n.exclusiveMaximum, err = k.number(key, v)
		} else {
			n.exclusiveMinimum, err = k.number(key, v)
		}

	// Strings.
	case "maxLength":
		return k.count(key, v, &n.maxLength)
	case "minLength":
		return k.count(key, v, &n.minLength)
	case "pattern":
		if err := k.want(key, v, "a string", kindString); err != nil {
			return err
		}
		re, why, err := compilePattern(v.str)
		if err != nil {
			return k.fail(key, "%s is not a valid regular expression: %s", quote(v.str), regexpError(err))
		}
		if why != "" {
			k.c.unchecked = append(k.c.unchecked, k.loc.ptr.plus(key)+": "+why)
		}
		n.pattern = re

	default:
		return k.container(key, v)
	}
	return err
}
