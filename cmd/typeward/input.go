package main

import (
	"io"
	"os"

	"github.com/typeward/typeward/internal/registry"
)

// parseFile reads and parses an input file; either failure is unusable
// input, and the reason names the file.
func parseFile[T any](path string, parse func([]byte) (T, error)) (T, error) {
	var zero T
	data, err := readInput(path)
	if err != nil {
		return zero, err
	}
	v, err := parse(data)
	if err != nil {
		return zero, usageError("%s: %v", path, err)
	}
	return v, nil
}

// readInput reads a file, refusing anything larger than any input typeward
// accepts before reading it whole.
func readInput(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, usageError("%v", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, registry.MaxToolsFileBytes+1))
	if err != nil {
		return nil, usageError("%s: %v", path, err)
	}
	if len(data) > registry.MaxToolsFileBytes {
		return nil, usageError("%s: larger than %d bytes", path, registry.MaxToolsFileBytes)
	}
	return data, nil
}
