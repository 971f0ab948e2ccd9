package jsonschema

// corpus is a set of schemas, each with values it accepts and values it
// refuses: every keyword, and every place where the dialects differ.
// TestCorpus checks the verdicts; the differential test compares them, and
// where each value breaks its schema, with a second implementation.
var corpus = []struct {
	name    string
	schema  string
	valid   []string
	invalid []string
}{
	// type
	{"type string", `{"type":"string"}`, []string{`""`, `"x"`}, []string{`1`, `null`, `[]`, `{}`, `true`}},
	{"type integer accepts 1.0", `{"type":"integer"}`, []string{`1`, `1.0`, `-0`, `1e2`, `10.0e-1`, `12345678901234567890`}, []string{`1.5`, `1e-2`, `"1"`, `null`}},
	{"type integer draft-04", `{"$schema":"http://json-schema.org/draft-04/schema#","type":"integer"}`, []string{`1`, `1.0`}, []string{`1.1`}},
	{"type number", `{"type":"number"}`, []string{`1`, `1.5`, `-1e300`}, []string{`"1"`, `true`}},
	{"type list", `{"type":["string","null"]}`, []string{`"a"`, `null`}, []string{`0`, `false`, `{}`}},
	{"type boolean null array object", `{"type":["boolean","array","object"]}`, []string{`true`, `false`, `[]`, `{}`}, []string{`null`, `0`, `""`}},

	// enum and const
	{"enum", `{"enum":["asc","desc",1000000,null,[1,2],{"a":1}]}`, []string{`"asc"`, `1000000`, `1e6`, `1000000.0`, `null`, `[1,2]`, `[1.0,2]`, `{"a":1}`, `{"a":1.0}`}, []string{`"ASC"`, `1`, `[2,1]`, `{"a":1,"b":2}`, `false`}},
	{"enum numbers", `{"properties":{"s":{"enum":[1000000,2]}}}`, []string{`{"s":2}`, `{"s":2.0}`}, []string{`{"s":3}`, `{"s":"2"}`}},
	{"enum false is not 0", `{"enum":[false]}`, []string{`false`}, []string{`0`, `null`, `""`}},
	// From draft-06 on, an enum SHOULD have a value and SHOULD not repeat
	// one (draft-04's MUSTs): a schema that breaks either is valid, and
	// an empty enum lets nothing through.
	{"an empty enum in draft-07", `{"$schema":"http://json-schema.org/draft-07/schema#","enum":[]}`, nil, []string{`1`, `null`, `""`}},
	{"a repeated enum value in draft-06", `{"$schema":"http://json-schema.org/draft-06/schema#","enum":[1,1.0]}`, []string{`1`}, []string{`2`}},
	{"const number", `{"const":1}`, []string{`1`, `1.0`, `1e0`, `10e-1`}, []string{`2`, `"1"`, `true`}},
	{"const object", `{"const":{"a":[1,{"b":null}]}}`, []string{`{"a":[1,{"b":null}]}`, `{"a":[1.0,{"b":null}]}`}, []string{`{"a":[1,{"b":0}]}`, `{"a":[1,{}]}`, `{}`}},
	{"const draft-04 ignored", `{"$schema":"http://json-schema.org/draft-04/schema#","const":1}`, []string{`1`, `2`}, nil},

	// numbers
	{"minimum maximum", `{"minimum":1,"maximum":100}`, []string{`1`, `100`, `50.5`, `"x"`}, []string{`0.999`, `100.0001`, `-1`}},
	{"maximum big", `{"properties":{"n":{"maximum":300000000}}}`, []string{`{"n":300000000}`, `{"n":3e8}`}, []string{`{"n":300000001}`, `{"n":300000000.0000001}`}},
	{"maximum beyond float64", `{"maximum":9007199254740993}`, []string{`9007199254740993`, `9007199254740992`}, []string{`9007199254740994`}},
	{"minimum fraction", `{"properties":{"n":{"minimum":0.5}}}`, []string{`{"n":0.5}`, `{"n":1}`}, []string{`{"n":0.25}`, `{"n":0.4999999999999999999999}`}},
	{"exclusive numbers", `{"exclusiveMinimum":-2,"exclusiveMaximum":1e10}`, []string{`-1.9`, `9999999999.99`}, []string{`-2`, `-3`, `1e10`, `12345678901.5`}},
	{"exclusive draft-04", `{"$schema":"http://json-schema.org/draft-04/schema#","minimum":1,"exclusiveMinimum":true,"maximum":3,"exclusiveMaximum":false}`, []string{`1.1`, `3`}, []string{`1`, `3.1`}},
	{"multipleOf decimal", `{"properties":{"n":{"multipleOf":0.01}}}`, []string{`{"n":0.12}`, `{"n":19.99}`, `{"n":100}`, `{"n":1e-2}`}, []string{`{"n":0.123}`, `{"n":0.001}`}},
	{"multipleOf", `{"multipleOf":1.5}`, []string{`0`, `3`, `-4.5`, `1.5e3`}, []string{`1`, `2.25`}},
	{"multipleOf small", `{"multipleOf":0.0001}`, []string{`0.0075`, `12`}, []string{`0.00751`}},
	{"multipleOf integer", `{"multipleOf":4}`, []string{`20`, `2e3`, `-8`}, []string{`10`, `4.4`}},

	// strings
	{"length in code points", `{"minLength":2,"maxLength":3}`, []string{`"ab"`, `"héé"`, `"💩💩"`, `5`}, []string{`"a"`, `"💩"`, `"abcd"`}},
	{"maxLength", `{"properties":{"s":{"maxLength":3}}}`, []string{`{"s":"abc"}`}, []string{`{"s":"abcdef"}`}},
	{"pattern", `{"pattern":"^[a-z]+[0-9]?$"}`, []string{`"abc"`, `"abc1"`, `1`}, []string{`"Abc"`, `"abc12"`, `""`}},
	{"pattern unanchored", `{"pattern":"b"}`, []string{`"abc"`}, []string{`"ac"`}},

	// format (asserted in draft-04 to -07, an annotation after)
	{"format 2020-12", `{"format":"email"}`, []string{`"x"`, `"a@b.c"`, `1`}, nil},
	{"format 2019-09", `{"$schema":"https://json-schema.org/draft/2019-09/schema","format":"date-time"}`, []string{`"x"`}, nil},
	{"format email draft-07", `{"$schema":"http://json-schema.org/draft-07/schema#","format":"email"}`, []string{`"a@b.c"`, `"a.b+c@example.com"`, `"\"a b\"@example.com"`, `"a@[127.0.0.1]"`, `"a@[IPv6:::1]"`, `3`}, []string{`"x"`, `"a@"`, `".a@b.c"`, `"a..b@c.d"`, `"a@-b.c"`}},
	{"format date-time draft-07", `{"$schema":"http://json-schema.org/draft-07/schema#","format":"date-time"}`, []string{`"2024-02-29T12:00:00Z"`, `"1998-12-31T23:59:60Z"`, `"1998-12-31T15:59:60.123-08:00"`, `"2024-01-01t00:00:00.5+01:00"`}, []string{`"2023-02-29T12:00:00Z"`, `"2024-01-01"`, `"2024-01-01T25:00:00Z"`, `"2024-01-01T12:00:60Z"`, `"2024-01-01T12:00:00"`}},
	{"format date draft-06", `{"$schema":"http://json-schema.org/draft-06/schema#","format":"date"}`, []string{`"2000-02-29"`, `"2024-12-31"`}, []string{`"1900-02-29"`, `"2024-13-01"`, `"2024-1-01"`, `"24-01-01"`}},
	{"format time draft-07", `{"$schema":"http://json-schema.org/draft-07/schema#","format":"time"}`, []string{`"08:30:06Z"`, `"23:59:60Z"`, `"08:30:06.283185+01:30"`}, []string{`"08:30:06"`, `"8:30:06Z"`, `"22:59:60Z"`, `"08:30:06+24:00"`}},
	{"format hostname ipv4 ipv6 draft-04", `{"$schema":"http://json-schema.org/draft-04/schema#","properties":{"h":{"format":"hostname"},"v4":{"format":"ipv4"},"v6":{"format":"ipv6"}}}`,
		[]string{`{"h":"example.com","v4":"192.168.0.1","v6":"::1"}`, `{"h":"a-b.c","v4":"0.0.0.0","v6":"2001:db8::ff00:42:8329"}`},
		[]string{`{"h":"a-b.c."}`, `{"h":"-a.com"}`, `{"h":"a_b.com"}`, `{"v4":"256.1.1.1"}`, `{"v4":"01.1.1.1"}`, `{"v4":"1.1.1"}`, `{"v6":"12345::"}`, `{"v6":"1.2.3.4"}`, `{"v6":"fe80::1%eth0"}`}},
	{"format uri draft-07", `{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"u":{"format":"uri"},"r":{"format":"uri-reference"},"t":{"format":"uri-template"}}}`,
		[]string{`{"u":"https://example.com/a?b#c","r":"../a","t":"https://example.com/{id}"}`, `{"u":"urn:isbn:0451450523","r":"#frag"}`},
		[]string{`{"u":"/relative"}`, `{"u":"http://[::1"}`, `{"r":"\\\\a"}`, `{"t":"http://x/{a{b}}"}`}},
	{"format uri grammars draft-07", `{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"u":{"format":"uri"},"r":{"format":"uri-reference"},"i":{"format":"iri"},"t":{"format":"uri-template"}}}`,
		[]string{`{"u":"http://[v1.fe]/","r":"./a:b","i":"http://ƒøø.ßår/?∂éœ=πîx","t":"{v:1000}"}`, `{"r":"//","t":"{+a.b,c*}/x%41"}`},
		[]string{`{"u":"https://example.org/foo bar"}`, `{"u":"http://example.com/%6G"}`, `{"u":"http:/[::1]"}`, `{"r":"1:b"}`, `{"r":"//a@b@c/"}`,
			`{"i":"http://example.org/\n"}`, `{"t":"{v:0}"}`, `{"t":"{a,}"}`, `{"t":"a b"}`}},
	{"format hostname email draft-07", `{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"h":{"format":"hostname"},"e":{"format":"email"}}}`,
		[]string{`{"h":"xn--9n2bp8q.xn--9t4b11yi5a","e":"a@b.c"}`, `{"h":"a--b.com"}`},
		[]string{`{"h":"example."}`, `{"h":"xn--X"}`, `{"h":"xn--hello-zed"}`, `{"e":"@example.com"}`}},
	{"format pointers uuid regex draft-07", `{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"p":{"format":"json-pointer"},"rp":{"format":"relative-json-pointer"},"u":{"format":"uuid"},"re":{"format":"regex"}}}`,
		[]string{`{"p":"/a~1b/0","rp":"1/a","u":"2EB8AA08-AA98-11EA-B4AA-73B441D16380","re":"^a+$"}`, `{"p":"","rp":"0#"}`},
		[]string{`{"p":"a"}`, `{"p":"/a~2"}`, `{"rp":"01/a"}`, `{"rp":"-1"}`, `{"u":"2eb8aa08-aa98-11ea-b4aa-73b441d1638"}`, `{"re":"(a"}`}},
	{"format duration semver period draft-07", `{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"d":{"format":"duration"},"s":{"format":"semver"},"p":{"format":"period"}}}`,
		[]string{`{"d":"P4DT12H30M5S","s":"1.0.0-alpha.1+001","p":"2024-01-01T00:00:00Z/P1D"}`, `{"d":"P2W","s":"0.0.1"}`},
		[]string{`{"d":"P"}`, `{"d":"PT"}`, `{"d":"P1M2Y"}`, `{"s":"1.0"}`, `{"s":"01.0.0"}`, `{"p":"P1D/P2D"}`}},
	{"format unknown", `{"$schema":"http://json-schema.org/draft-07/schema#","format":"no-such-format"}`, []string{`"anything"`}, nil},

	// arrays
	{"items schema", `{"items":{"type":"integer"}}`, []string{`[]`, `[1,2]`, `{"0":"x"}`}, []string{`[1,"x"]`, `["x"]`}},
	{"min max items", `{"properties":{"a":{"minItems":2,"maxItems":3}}}`, []string{`{"a":[1,2]}`, `{"a":[1,2,3]}`}, []string{`{"a":[1]}`, `{"a":[1,2,3,4]}`}},
	{"uniqueItems", `{"uniqueItems":true}`, []string{`[1,2]`, `[1,"1"]`, `[{"a":1},{"a":2}]`, `[[1],[true]]`, `[0,false]`},
		[]string{`[1,1.0]`, `[{"a":1,"b":2},{"b":2,"a":1}]`, `[[1],[1]]`, `["a","b","a"]`, `[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,2.0]`}},
	{"uniqueItems false", `{"uniqueItems":false}`, []string{`[1,1]`}, nil},
	{"items array draft-07", `{"$schema":"http://json-schema.org/draft-07/schema#","items":[{"type":"integer"},{"type":"string"}],"additionalItems":false}`,
		[]string{`[]`, `[1]`, `[1,"a"]`}, []string{`["a"]`, `[1,2]`, `[1,"a",null]`}},
	{"additionalItems schema draft-04", `{"$schema":"http://json-schema.org/draft-04/schema#","items":[{}],"additionalItems":{"type":"integer"}}`, []string{`[null]`, `[null,1,2]`}, []string{`[null,1,"x"]`}},
	{"additionalItems ignored without items array", `{"$schema":"http://json-schema.org/draft-07/schema#","items":{"type":"integer"},"additionalItems":false}`, []string{`[1,2,3]`}, []string{`["x"]`}},
	{"prefixItems 2020-12", `{"prefixItems":[{"type":"integer"},{"type":"string"}],"items":false}`, []string{`[]`, `[1]`, `[1,"a"]`}, []string{`["a"]`, `[1,"a",null]`}},
	{"items array is invalid in 2020-12 so prefixItems alone", `{"prefixItems":[{"const":1}],"items":{"type":"string"}}`, []string{`[1,"a","b"]`}, []string{`[2]`, `[1,2]`}},
	{"prefixItems ignored draft-07", `{"$schema":"http://json-schema.org/draft-07/schema#","prefixItems":[{"type":"integer"}]}`, []string{`["x"]`}, nil},
	{"contains", `{"contains":{"type":"integer"}}`, []string{`[1]`, `["a",2]`, `"x"`}, []string{`[]`, `["a","b"]`}},
	{"contains draft-04 ignored", `{"$schema":"http://json-schema.org/draft-04/schema#","contains":{"type":"integer"}}`, []string{`["a"]`}, nil},
	{"min max contains", `{"contains":{"const":1},"minContains":2,"maxContains":3}`, []string{`[1,1]`, `[1,2,1,1]`}, []string{`[1]`, `[1,1,1,1]`, `[]`}},
	{"minContains 0", `{"contains":{"const":1},"minContains":0}`, []string{`[]`, `[2]`}, nil},
	{"minContains draft-07 ignored", `{"$schema":"http://json-schema.org/draft-07/schema#","contains":{"const":1},"minContains":2}`, []string{`[1]`}, []string{`[2]`}},

	// objects
	{"required", `{"type":"object","properties":{"query":{"type":"string"}},"required":["query","limit"]}`, []string{`{"query":"q","limit":1}`}, []string{`{"limit":10}`, `{}`, `{"query":1,"limit":1}`, `[]`}},
	{"required without type", `{"required":["a"]}`, []string{`{"a":null}`, `[]`, `"a"`}, []string{`{"b":1}`}},
	{"min max properties", `{"minProperties":1,"maxProperties":2}`, []string{`{"a":1}`, `{"a":1,"b":2}`, `[]`}, []string{`{}`, `{"a":1,"b":2,"c":3}`}},
	{"properties nested", `{"properties":{"filter":{"type":"object","properties":{"since":{"type":"integer"},"labels":{"items":{"type":"string"}}}}}}`,
		[]string{`{"filter":{"since":1,"labels":["a"]}}`, `{"other":1}`}, []string{`{"filter":{"since":"x"}}`, `{"filter":{"labels":["a",1]}}`, `{"filter":[]}`}},
	{"properties escaped names", `{"properties":{"a/b":{"type":"integer"},"c~d":{"type":"integer"}}}`, []string{`{"a/b":1,"c~d":2}`}, []string{`{"a/b":"x"}`, `{"c~d":"x"}`}},
	{"patternProperties", `{"patternProperties":{"^x-":{"type":"string"},"[0-9]$":{"type":"integer"}}}`, []string{`{"x-a":"s","b1":1,"c":null}`}, []string{`{"x-a":1}`, `{"b1":"s"}`, `{"x-1":"s"}`}},
	{"additionalProperties false", `{"properties":{"n":{"type":"number"}},"patternProperties":{"^p":{}},"additionalProperties":false}`, []string{`{"n":1,"pa":2}`, `{}`}, []string{`{"n":1,"extra":true}`, `{"n":"x","extra":true}`}},
	{"additionalProperties schema", `{"properties":{"a":{}},"additionalProperties":{"type":"boolean"}}`, []string{`{"a":1,"b":true}`}, []string{`{"a":1,"b":1}`}},
	{"additionalProperties draft-04 boolean", `{"$schema":"http://json-schema.org/draft-04/schema#","properties":{"a":{}},"additionalProperties":false}`, []string{`{"a":1}`}, []string{`{"b":1}`}},
	{"propertyNames", `{"propertyNames":{"pattern":"^[a-z]+$","maxLength":3}}`, []string{`{"abc":1}`, `{}`, `[1]`}, []string{`{"ABC":1}`, `{"abcd":1}`}},
	{"propertyNames false", `{"propertyNames":false}`, []string{`{}`}, []string{`{"a":1}`}},
	{"dependencies draft-07", `{"$schema":"http://json-schema.org/draft-07/schema#","dependencies":{"credit_card":["billing_address"],"name":{"required":["age"]}}}`,
		[]string{`{}`, `{"credit_card":1,"billing_address":2}`, `{"name":"x","age":1}`, `{"billing_address":2}`}, []string{`{"credit_card":1}`, `{"name":"x"}`}},
	{"dependencies draft-04", `{"$schema":"http://json-schema.org/draft-04/schema#","dependencies":{"a":["b","c"]}}`, []string{`{"a":1,"b":1,"c":1}`}, []string{`{"a":1,"b":1}`}},
	{"dependentRequired", `{"dependentRequired":{"credit_card":["billing_address"]}}`, []string{`{}`, `{"credit_card":1,"billing_address":2}`}, []string{`{"credit_card":1}`}},
	{"dependentSchemas", `{"dependentSchemas":{"bar":{"properties":{"foo":{"type":"integer"}}}}}`, []string{`{"foo":"x"}`, `{"bar":1,"foo":1}`}, []string{`{"bar":1,"foo":"x"}`}},
	{"dependentRequired draft-07 ignored", `{"$schema":"http://json-schema.org/draft-07/schema#","dependentRequired":{"a":["b"]}}`, []string{`{"a":1}`}, nil},

	// combinators
	{"allOf", `{"allOf":[{"type":"integer"},{"minimum":3}]}`, []string{`3`, `4.0`}, []string{`2`, `3.5`, `"x"`}},
	{"anyOf", `{"properties":{"page":{"anyOf":[{"type":"integer"},{"type":"null"}]}}}`, []string{`{"page":1}`, `{"page":null}`}, []string{`{"page":"x"}`}},
	{"oneOf", `{"oneOf":[{"type":"integer"},{"minimum":2}]}`, []string{`1`, `2.5`}, []string{`3`, `1.5`}},
	{"oneOf with format", `{"properties":{"when":{"oneOf":[{"type":"integer"},{"type":"string","format":"date"}]}}}`, []string{`{"when":1}`, `{"when":"x"}`}, []string{`{"when":null}`}},
	{"not", `{"not":{"type":"string"}}`, []string{`1`, `null`}, []string{`"x"`}},
	{"if then else", `{"$schema":"http://json-schema.org/draft-07/schema#","if":{"properties":{"kind":{"const":"a"}}},"then":{"required":["a"]},"else":{"required":["b"]}}`,
		[]string{`{"kind":"a","a":1}`, `{"kind":"b","b":1}`, `{"a":1}`}, []string{`{"kind":"a"}`, `{"kind":"b","a":1}`, `{"b":1}`}},
	{"then without if", `{"then":false,"else":false}`, []string{`1`}, nil},
	{"if draft-06 ignored", `{"$schema":"http://json-schema.org/draft-06/schema#","if":true,"then":false}`, []string{`1`}, nil},

	// boolean schemas
	{"true", `true`, []string{`1`, `null`, `{}`}, nil},
	{"false", `false`, nil, []string{`1`, `null`, `{}`}},
	{"false under properties", `{"properties":{"a":false,"b":true}}`, []string{`{"b":1}`}, []string{`{"a":1}`}},
	{"empty schema", `{}`, []string{`1`, `"x"`, `[{}]`}, nil},

	// references
	{"ref to $defs", `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"user":{"$ref":"#/$defs/user"},"users":{"type":"array","items":{"$ref":"#/$defs/user"}}},"$defs":{"user":{"type":"object","properties":{"id":{"type":"integer"}}}}}`,
		[]string{`{"user":{"id":1},"users":[{"id":2}]}`}, []string{`{"user":{"id":"x"}}`, `{"users":[{"id":1},{"id":"x"}]}`}},
	{"ref to definitions draft-07", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"n":{"type":"number"},"point":{"$ref":"#/definitions/p"}},"definitions":{"p":{"type":"object","properties":{"x":{"type":"number"}}}},"additionalProperties":false}`,
		[]string{`{"n":1,"point":{"x":1}}`}, []string{`{"n":1,"extra":true}`, `{"point":{"x":"1"}}`}},
	{"ref siblings ignored draft-07", `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"a":{"type":"integer"}},"properties":{"x":{"$ref":"#/definitions/a","maximum":2}}}`, []string{`{"x":5}`}, []string{`{"x":"5"}`}},
	{"ref siblings apply 2019-09", `{"$schema":"https://json-schema.org/draft/2019-09/schema","$defs":{"a":{"type":"integer"}},"properties":{"x":{"$ref":"#/$defs/a","maximum":2}}}`, []string{`{"x":1}`}, []string{`{"x":5}`, `{"x":"5"}`}},
	{"ref to root recursive", `{"properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#"}}}}`, []string{`{"name":"a","children":[{"name":"b","children":[]}]}`}, []string{`{"children":[{"children":[{"name":1}]}]}`}},
	{"ref escaped pointer", `{"$defs":{"a/b":{"type":"integer"},"c%d":{"type":"string"}},"properties":{"x":{"$ref":"#/$defs/a~1b"},"y":{"$ref":"#/$defs/c%25d"}}}`, []string{`{"x":1,"y":"s"}`}, []string{`{"x":"s"}`, `{"y":1}`}},
	{"ref to anchor", `{"$defs":{"n":{"$anchor":"num","type":"number"}},"items":{"$ref":"#num"}}`, []string{`[1,2]`}, []string{`["x"]`}},
	{"ref to plain-name id draft-07", `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"n":{"$id":"#num","type":"number"}},"items":{"$ref":"#num"}}`, []string{`[1]`}, []string{`["x"]`}},
	{"ref to id draft-04", `{"$schema":"http://json-schema.org/draft-04/schema#","id":"http://example.com/root.json","definitions":{"n":{"id":"n.json","type":"number"}},"items":{"$ref":"n.json"}}`, []string{`[1]`}, []string{`["x"]`}},
	{"ref to embedded resource", `{"$id":"https://example.com/root","$defs":{"u":{"$id":"user","type":"object","required":["id"],"properties":{"id":{"$ref":"#/$defs/id"}},"$defs":{"id":{"type":"integer"}}}},"$ref":"user"}`,
		[]string{`{"id":1}`}, []string{`{}`, `{"id":"x"}`}},
	{"ref through urn id", `{"$id":"urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed","$defs":{"bar":{"type":"string"}},"properties":{"foo":{"$ref":"urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed#/$defs/bar"}}}`, []string{`{"foo":"a"}`}, []string{`{"foo":1}`}},
	{"ref to boolean", `{"$defs":{"f":false},"properties":{"a":{"$ref":"#/$defs/f"}}}`, []string{`{}`}, []string{`{"a":1}`}},
	{"recursiveRef 2019-09", `{"$schema":"https://json-schema.org/draft/2019-09/schema","$id":"https://example.com/tree","$recursiveAnchor":true,"type":"object","properties":{"data":true,"children":{"type":"array","items":{"$recursiveRef":"#"}}}}`,
		[]string{`{"data":1,"children":[{"children":[]}]}`}, []string{`{"children":[1]}`}},
	{"dynamicRef 2020-12", `{"$id":"https://example.com/strict","$dynamicAnchor":"node","$ref":"tree","unevaluatedProperties":false,"$defs":{"tree":{"$id":"tree","$dynamicAnchor":"node","type":"object","properties":{"data":true,"children":{"type":"array","items":{"$dynamicRef":"#node"}}}}}}`,
		[]string{`{"children":[{"data":1}]}`}, []string{`{"children":[{"daat":1}]}`, `{"extra":1}`}},

	// unevaluated
	{"unevaluatedProperties", `{"properties":{"a":true},"allOf":[{"properties":{"b":true}}],"anyOf":[{"properties":{"c":true},"required":["c"]},{"properties":{"d":true},"required":["d"]}],"unevaluatedProperties":false}`,
		[]string{`{"a":1,"b":1,"c":1}`, `{"d":1}`, `{"c":1,"d":1}`}, []string{`{"a":1,"e":1}`, `{"c":1,"e":1}`}},
	{"unevaluatedProperties with if", `{"if":{"properties":{"foo":{"const":"then"}},"required":["foo"]},"then":{"properties":{"bar":true}},"else":{"properties":{"baz":true}},"unevaluatedProperties":false}`,
		[]string{`{"foo":"then","bar":1}`, `{"baz":1}`}, []string{`{"foo":"then","baz":1}`, `{"foo":"else"}`}},
	{"unevaluatedProperties with ref", `{"$ref":"#/$defs/a","properties":{"b":true},"unevaluatedProperties":false,"$defs":{"a":{"properties":{"a":true}}}}`, []string{`{"a":1,"b":1}`}, []string{`{"a":1,"c":1}`}},
	{"unevaluatedProperties with not", `{"not":{"not":{"properties":{"a":true}}},"unevaluatedProperties":false}`, []string{`{}`}, []string{`{"a":1}`}},
	{"unevaluatedProperties schema", `{"properties":{"a":true},"unevaluatedProperties":{"type":"integer"}}`, []string{`{"a":"x","b":1}`}, []string{`{"b":"x"}`}},
	{"unevaluatedItems", `{"prefixItems":[true],"unevaluatedItems":false}`, []string{`[]`, `[1]`}, []string{`[1,2]`}},
	{"unevaluatedItems with contains", `{"contains":{"type":"string"},"unevaluatedItems":{"type":"integer"}}`, []string{`["a",1]`, `["a","b"]`}, []string{`["a",1.5]`}},
	{"unevaluatedItems 2019-09", `{"$schema":"https://json-schema.org/draft/2019-09/schema","items":[true],"additionalItems":{"type":"string"},"unevaluatedItems":false}`, []string{`[1,"a"]`}, []string{`[1,2]`}},
	{"unevaluatedItems 2019-09 contains does not count", `{"$schema":"https://json-schema.org/draft/2019-09/schema","contains":{"type":"string"},"unevaluatedItems":false}`, nil, []string{`["a"]`, `[]`}},
	{"unevaluatedItems 2020-12 contains counts", `{"contains":{"type":"string"},"unevaluatedItems":false}`, []string{`["a"]`}, []string{`["a",1]`}},
	{"unevaluatedProperties draft-07 ignored", `{"$schema":"http://json-schema.org/draft-07/schema#","unevaluatedProperties":false}`, []string{`{"a":1}`}, nil},

	// $schema spellings
	{"draft-07 without #", `{"$schema":"http://json-schema.org/draft-07/schema","format":"email"}`, nil, []string{`"x"`}},
	{"draft-07 over https", `{"$schema":"https://json-schema.org/draft-07/schema#","format":"email"}`, nil, []string{`"x"`}},
	{"2020-12 with #", `{"$schema":"https://json-schema.org/draft/2020-12/schema#","format":"email"}`, []string{`"x"`}, nil},
	{"2019-09 over http", `{"$schema":"http://json-schema.org/draft/2019-09/schema","format":"email"}`, []string{`"x"`}, nil},

	// a realistic tool schema
	{"tool inputSchema", benchSchema, []string{benchValue, `{"query":"q"}`}, []string{`{}`, `{"query":"q","limit":0}`, `{"query":"q","sort":"up"}`, `{"query":"q","owner":{"login":"a b"}}`, `{"query":"q","extra":1}`}},
}

// invalidSchemas do not compile: each keyword's value of the wrong type or
// out of range, as the dialect's metaschema would find, and references that
// resolve nowhere. want is the pointer and keyword of the error.
var invalidSchemas = []struct {
	schema           string
	pointer, keyword string
}{
	{`{"type":"no-such-type"}`, "/type", "type"},
	{`{"type":["string","string"]}`, "/type/1", "type"},
	{`{"type":[]}`, "/type", "type"},
	{`{"type":1}`, "/type", "type"},
	{`{"properties":{"a":{"type":"x"}}}`, "/properties/a/type", "type"},
	{`{"properties":{"a":1}}`, "/properties/a", "properties"},
	{`{"properties":[]}`, "/properties", "properties"},
	{`{"required":"a"}`, "/required", "required"},
	{`{"required":["a","a"]}`, "/required", "required"},
	{`{"required":[1]}`, "/required", "required"},
	{`{"$schema":"http://json-schema.org/draft-04/schema#","required":[]}`, "/required", "required"},
	{`{"minimum":"1"}`, "/minimum", "minimum"},
	{`{"maxLength":-1}`, "/maxLength", "maxLength"},
	{`{"minItems":1.5}`, "/minItems", "minItems"},
	{`{"multipleOf":0}`, "/multipleOf", "multipleOf"},
	{`{"multipleOf":-2}`, "/multipleOf", "multipleOf"},
	{`{"pattern":"(a"}`, "/pattern", "pattern"},
	{`{"patternProperties":{"(a":{}}}`, "/patternProperties/(a", "patternProperties"},
	{`{"uniqueItems":1}`, "/uniqueItems", "uniqueItems"},
	{`{"enum":1}`, "/enum", "enum"},
	{`{"$schema":"http://json-schema.org/draft-04/schema#","enum":[]}`, "/enum", "enum"},
	{`{"$schema":"http://json-schema.org/draft-04/schema#","enum":[1,1.0]}`, "/enum", "enum"},
	{`{"allOf":[]}`, "/allOf", "allOf"},
	{`{"anyOf":{}}`, "/anyOf", "anyOf"},
	{`{"oneOf":[1]}`, "/oneOf/0", "oneOf"},
	{`{"not":"x"}`, "/not", "not"},
	{`{"items":[{}]}`, "/items", "items"},
	{`{"$schema":"http://json-schema.org/draft-04/schema#","items":true}`, "/items", "items"},
	{`{"$schema":"http://json-schema.org/draft-04/schema#","exclusiveMinimum":true}`, "/exclusiveMinimum", "exclusiveMinimum"},
	{`{"$schema":"http://json-schema.org/draft-04/schema#","minimum":1,"exclusiveMinimum":1}`, "/exclusiveMinimum", "exclusiveMinimum"},
	{`{"exclusiveMinimum":true}`, "/exclusiveMinimum", "exclusiveMinimum"},
	{`{"dependentRequired":{"a":[1]}}`, "/dependentRequired/a", "dependentRequired"},
	{`{"$schema":"http://json-schema.org/draft-07/schema#","dependencies":{"a":1}}`, "/dependencies/a", "dependencies"},
	{`{"$defs":{"a":1}}`, "/$defs/a", "$defs"},
	{`{"format":1}`, "/format", "format"},
	{`{"title":1}`, "/title", "title"},
	{`{"$anchor":"1a"}`, "/$anchor", "$anchor"},
	{`{"$id":"https://example.com/a#frag"}`, "/$id", "$id"},
	{`{"$schema":"https://example.com/my-dialect"}`, "/$schema", "$schema"},
	{`{"$ref":"#/$defs/missing"}`, "/$ref", "$ref"},
	{`{"$ref":"#nowhere"}`, "/$ref", "$ref"},
	{`{"$ref":"https://example.com/schema.json"}`, "/$ref", "$ref"},
	{`{"$ref":"file:///etc/passwd"}`, "/$ref", "$ref"},
	{`{"$ref":"other.json"}`, "/$ref", "$ref"},
	{`{"properties":{"a":{"$ref":1}}}`, "/properties/a/$ref", "$ref"},
	{`{"minContains":-1}`, "/minContains", "minContains"},
	{`{"$defs":{"a":{"$anchor":"x"},"b":{"$anchor":"x"}}}`, "/$defs/b/$anchor", "$anchor"},
	{`1`, "", ""},
}

// benchSchema is a tool's inputSchema as servers write them: a dozen
// properties, a nested object, an enum, a pattern, a $ref to $defs.
const benchSchema = `{
	"$schema": "https://json-schema.org/draft/2020-12/schema",
	"type": "object",
	"properties": {
		"query": {"type": "string", "minLength": 1, "maxLength": 500, "description": "what to search for"},
		"limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10},
		"offset": {"type": "integer", "minimum": 0},
		"sort": {"type": "string", "enum": ["relevance", "newest", "oldest", "stars"]},
		"order": {"enum": ["asc", "desc"]},
		"language": {"type": "string", "pattern": "^[a-z]{2}(-[A-Z]{2})?$"},
		"tags": {"type": "array", "items": {"type": "string", "minLength": 1}, "maxItems": 20, "uniqueItems": true},
		"score": {"type": "number", "exclusiveMinimum": 0, "multipleOf": 0.01},
		"archived": {"type": "boolean"},
		"cursor": {"type": ["string", "null"]},
		"since": {"type": "string", "format": "date-time"},
		"owner": {"$ref": "#/$defs/user"},
		"filter": {
			"type": "object",
			"properties": {
				"labels": {"type": "array", "items": {"type": "string"}},
				"state": {"enum": ["open", "closed", "all"]},
				"assignee": {"$ref": "#/$defs/user"}
			},
			"additionalProperties": false
		}
	},
	"required": ["query"],
	"additionalProperties": false,
	"$defs": {
		"user": {
			"type": "object",
			"properties": {
				"login": {"type": "string", "pattern": "^[A-Za-z0-9-]+$"},
				"id": {"type": "integer", "minimum": 1}
			},
			"required": ["login"]
		}
	}
}`

const benchValue = `{"query":"json schema validator","limit":25,"offset":50,"sort":"stars","order":"desc","language":"en-GB",
	"tags":["go","cli","mcp"],"score":4.75,"archived":false,"cursor":null,"since":"2024-06-01T12:00:00Z",
	"owner":{"login":"octo-cat","id":583231},
	"filter":{"labels":["bug","help wanted"],"state":"open","assignee":{"login":"someone"}}}`
