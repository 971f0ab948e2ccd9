//go:build !(linux || darwin)

package mcp

func mapPiece(int) ([]byte, bool) { return nil, false }

func unmapPiece([]byte) {}
