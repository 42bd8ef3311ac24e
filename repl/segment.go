package repl

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"sort"
	"strconv"
	"strings"
)

// A segment is a file of cells: the magic line, then records of
//
//	length  uint32, little-endian: bytes of the cell, 1 to MaxCell
//	crc     uint32, little-endian: CRC-32C (Castagnoli) of the cell
//	cell    length bytes
//
// A record that does not fit the rest of the file, has a length out of
// range (zeros of a sparse file have length 0) or fails its checksum ends
// the segment: it is a torn tail, dropped whole, never misread.
const (
	segmentMagic = "replhost journal 1\n"
	recordHeader = 8
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// errNotSegment is a file that does not start with the magic line.
var errNotSegment = errors.New("not a journal segment")

// appendRecord appends the record of cell to b.
func appendRecord(b []byte, cell string) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(cell)))
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum([]byte(cell), castagnoli))
	return append(b, cell...)
}

// readSegment reads the cells of a segment of size bytes from r, at most
// size bytes whatever r holds. valid is the length of its whole records (a
// torn tail starts there).
func readSegment(r io.Reader, size int64) (cells []string, valid int64, err error) {
	br := bufio.NewReader(io.LimitReader(r, size))
	magic := make([]byte, len(segmentMagic))
	if _, err := io.ReadFull(br, magic); err != nil || string(magic) != segmentMagic {
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, 0, err
		}
		return nil, 0, errNotSegment
	}
	valid = int64(len(segmentMagic))
	var hdr [recordHeader]byte
	for {
		if _, err := io.ReadFull(br, hdr[:]); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return cells, valid, nil
			}
			return nil, 0, err
		}
		n := int64(binary.LittleEndian.Uint32(hdr[:4]))
		sum := binary.LittleEndian.Uint32(hdr[4:])
		if n < 1 || n > MaxCell || valid+recordHeader+n > size {
			return cells, valid, nil // torn, or not a record
		}
		cell := make([]byte, n)
		if _, err := io.ReadFull(br, cell); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return cells, valid, nil
			}
			return nil, 0, err
		}
		if crc32.Checksum(cell, castagnoli) != sum {
			return cells, valid, nil
		}
		cells = append(cells, string(cell))
		valid += recordHeader + n
	}
}

// sortOldCells picks the cell files of the old format ("000042.go") out of
// a directory's names, in order.
func sortOldCells(names []string) []string {
	var cells []string
	for _, n := range names {
		if oldCellNumber(n) > 0 {
			cells = append(cells, n)
		}
	}
	sort.Slice(cells, func(a, b int) bool { return oldCellNumber(cells[a]) < oldCellNumber(cells[b]) })
	return cells
}

// oldCellNumber is the number of an old cell file "000042.go", or 0 for any
// other name.
func oldCellNumber(name string) int {
	digits, ok := strings.CutSuffix(name, ".go")
	if !ok || digits == "" || strings.TrimLeft(digits, "0123456789") != "" {
		return 0
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// plural is "1 cell", "2 cells".
func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
