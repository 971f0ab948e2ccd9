package mcp

// ListChanged is the server's list a notification says has changed:
// "tools", "prompts" or "resources" for their list_changed notifications
// (the resource templates are the resources' list), ok false for any
// other method.
func ListChanged(method string) (list string, ok bool) {
	switch method {
	case "notifications/tools/list_changed":
		return "tools", true
	case "notifications/prompts/list_changed":
		return "prompts", true
	case "notifications/resources/list_changed":
		return "resources", true
	}
	return "", false
}
