// Package elicit answers the server's elicitation/create requests for a
// scriptable client.
//
// A server may ask the user for a small form (form mode) or ask them to open a
// URL (URL mode). mcpv answers from the answers it was given (Answers as
// text, AnswerJSON as JSON) and from a policy: prompt on the terminal,
// accept (take the defaults), decline or cancel. Every request leaves at
// least two records on Log: which server asks and its message, then what
// mcpv answered and why (plus any warnings), so a log explains what
// happened. Advice lets the caller say, in its own words, how a user could
// have answered a form that went unanswered.
//
// # Form mode
//
// The requested schema is a flat object of primitive properties: strings
// (minLength, maxLength, format email|uri|date|date-time, pattern), numbers and
// integers (minimum, maximum), booleans, single-select enums (enum, oneOf
// const/title, legacy enumNames) and multi-select arrays (items.enum or
// items.anyOf const/title, minItems, maxItems), each with an optional default,
// and a required list. Anything else (nested objects, unknown types, a
// required name that is not a property) is invalid params.
//
// Answers from Options.Answers are text typed by the property's schema:
// integer → a JSON integer (digits only, "1.5" is rejected, leading zeros are
// dropped, big values stay exact), number → the text as a JSON number (it must
// be one), boolean → true for true/yes/1 and false for false/no/0 (any case),
// string → the text as is ("007" stays "007"), single-select → the text (a
// choice's title is taken for its value), multi-select → the text split on
// commas. Options.AnswerJSON values are used as given and only validated. A key
// in both takes the Answers text. A key the form does not have is ignored with
// a warning.
//
// The decision, in order:
//
//  1. Collect the answers for the form's fields. "Answered" means at least one
//     answer names a field of this form (answers meant for another form do not
//     count).
//  2. If the policy is accept, or the form was answered, fill each unanswered
//     field that has a default with it. A default that breaks its own schema is
//     skipped with a warning.
//  3. If the policy is accept or the form was answered, and every value is
//     valid and every required field has one, answer accept with the values.
//     A form nobody answered is never accepted under decline, cancel or
//     prompt without asking, even when it has no required fields.
//  4. Otherwise, with policy prompt and a terminal, ask on the terminal for
//     each field that has no value (invalid answers are dropped with a warning
//     and asked again): the title, description, choices and default are shown,
//     Enter takes the default, an empty answer to a required field asks again,
//     an invalid answer asks again, and "q" or end of input cancels. Then the
//     values are shown on one line with "Send? [Y/n/decline]": Y or Enter sends,
//     n asks every field again (Enter keeps the current value), decline
//     declines, q or end of input cancels.
//  5. Otherwise (no terminal, or another policy): invalid values → decline,
//     with one warning line per field naming the rule it breaks; missing
//     required fields or no answers → decline under decline, accept and prompt
//     (prompt without a terminal behaves as decline), cancel under cancel.
//
// Validation checks types, minLength/maxLength (in characters), minimum and
// maximum (exactly, on the number text), enum membership, minItems/maxItems,
// pattern (Go regexp syntax; a pattern Go cannot compile is not checked, with a
// warning) and loosely the formats: email has one @ and a dot after it, uri
// parses with a scheme, date is YYYY-MM-DD, date-time is RFC 3339. An accepted
// result lists content keys in the schema's property order.
//
// # URL mode
//
// URL mode is declared (see Options.Capability) only when there is a terminal
// to ask for consent, a way to open a browser and the policy is prompt; a URL
// request otherwise is invalid params, as is any other mode. The full URL and
// its host go to Log, with warnings for punycode hosts, user info before the
// host and plain http. mcpv never fetches the URL itself; it asks "Open this
// URL in your browser? [y/N]": y opens it and answers accept, n or Enter
// declines, q or end of input cancels. URLs that are not http or https are
// declined without asking.
//
// # Cancellation
//
// When ctx ends while mcpv waits for the user (Ctrl-C, or the server cancelled
// its request), Handle returns ctx.Err() and the caller sends nothing. Only one
// question is on the terminal at a time; concurrent requests wait their turn.
package elicit
