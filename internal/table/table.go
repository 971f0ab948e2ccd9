// Package table lays out what a server lists for people to read at a
// terminal, as gh and kubectl print theirs: a header in capitals, columns
// two spaces apart, a row per item, each cell one line made safe to show
// (internal/safetext: a server's escapes and controls are shown escaped,
// its line breaks become spaces), and the columns that may be cut (a
// description, never a name) cut to the terminal's width with "…",
// counting the columns each character takes there (safetext.Width: a
// CJK character or an emoji two, a combining mark none). views.go makes
// the tables of MCP's lists and of the initialize result.
package table

import (
	"io"
	"strings"

	"github.com/mcpv/mcpv/internal/safetext"
)

// Column is a column's title and whether its cells may be cut to fit.
type Column struct {
	Title string
	Cut   bool
}

// Table is rows under columns. A table whose columns have no titles has
// no header line.
type Table struct {
	cols []Column
	rows [][]string
}

// New is an empty table with these columns.
func New(cols ...Column) *Table { return &Table{cols: cols} }

// Add adds a row; cells beyond the columns are dropped, missing ones are
// empty. Each cell is made safe to show on one line.
func (t *Table) Add(cells ...string) {
	row := make([]string, len(t.cols))
	for i := range row {
		if i < len(cells) {
			row[i] = strings.Join(strings.Fields(safetext.Prose(cells[i])), " ")
		}
	}
	t.rows = append(t.rows, row)
}

// Len is the number of rows.
func (t *Table) Len() int { return len(t.rows) }

// gap is the space between columns.
const gap = 2

// minCut is the narrowest a column that may be cut is made (its title
// too), unless its cells are all narrower: below it a cell says too little
// to be worth a column.
const minCut = 12

// Write writes the table within width columns of the terminal, cutting
// the cells of the columns that may be cut, the widest first; width ≤ 0
// cuts nothing (not a terminal). A table that does not fit even so (its
// names are wider than the terminal) is written whole: the terminal wraps
// its lines, and nothing of a name is lost.
func (t *Table) Write(w io.Writer, width int) error {
	widths := t.widths(width)
	header := false
	for _, c := range t.cols {
		header = header || c.Title != ""
	}
	var b strings.Builder
	if header {
		titles := make([]string, len(t.cols))
		for i, c := range t.cols {
			titles[i] = strings.ToUpper(c.Title)
		}
		writeRow(&b, titles, widths)
	}
	for _, row := range t.rows {
		writeRow(&b, row, widths)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// widths are the columns' widths: each its widest cell's, those that may
// be cut made narrower, the widest first, until the row fits in limit.
func (t *Table) widths(limit int) []int {
	widths := make([]int, len(t.cols))
	floor := make([]int, len(t.cols))
	for i, c := range t.cols {
		widths[i] = safetext.Width(c.Title)
		for _, row := range t.rows {
			widths[i] = max(widths[i], safetext.Width(row[i]))
		}
		floor[i] = widths[i]
		if c.Cut {
			floor[i] = min(widths[i], minCut)
		}
	}
	if limit <= 0 {
		return widths
	}
	total := gap * (len(widths) - 1)
	for _, n := range widths {
		total += n
	}
	for total > limit {
		widest := -1
		for i := range widths {
			if widths[i] > floor[i] && (widest < 0 || widths[i] > widths[widest]) {
				widest = i
			}
		}
		if widest < 0 {
			break
		}
		widths[widest]--
		total--
	}
	return widths
}

// writeRow writes the cells, each cut or padded to its column's width; a
// line ends without padding.
func writeRow(b *strings.Builder, cells []string, widths []int) {
	var line strings.Builder
	for i, cell := range cells {
		cell = safetext.Fit(cell, widths[i])
		line.WriteString(cell)
		if i < len(cells)-1 {
			line.WriteString(strings.Repeat(" ", widths[i]-safetext.Width(cell)+gap))
		}
	}
	b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
}
