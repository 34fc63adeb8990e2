package main

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"hash"
	"hash/crc32"
	"net"
	"net/rpc"
	"os"
	"path/filepath"
	"sync"
)

// The transfer benchmark's Go yardstick: the published scenario (2 MiB uploads from 10 clients,
// 64 KiB chunks, CRC-32C per chunk, SHA-256 of the file, commit by rename) written the way a Go
// programmer writes it with the standard library: net/rpc with gob over a Unix socket, one
// synchronous call per chunk.

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// BeginArgs starts an upload of Name (Size bytes); the reply is the upload's id.
type BeginArgs struct {
	Name string
	Size int64
}

// ChunkArgs carries Data at Offset of upload ID with its CRC-32C.
type ChunkArgs struct {
	ID     uint64
	Offset int64
	Data   []byte
	CRC32C uint32
}

// CommitArgs ends upload ID: the server checks the size and SHA-256, then renames the file.
type CommitArgs struct {
	ID     uint64
	SHA256 []byte
}

type upload struct {
	name    string
	size    int64
	written int64
	file    *os.File
	hash    hash.Hash
}

// Transfer is the net/rpc service.
type Transfer struct {
	root  string
	fsync bool
	mu    sync.Mutex
	next  uint64
	open  map[uint64]*upload
}

// Begin creates the upload's temporary file under root.
func (t *Transfer) Begin(a BeginArgs, id *uint64) error {
	if a.Name == "" || filepath.IsAbs(a.Name) || filepath.Clean(a.Name) != a.Name {
		return fmt.Errorf("bad name %q", a.Name)
	}
	t.mu.Lock()
	t.next++
	n := t.next
	t.mu.Unlock()
	f, err := os.OpenFile(filepath.Join(t.root, fmt.Sprintf(".upload-%d.part", n)), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	t.mu.Lock()
	t.open[n] = &upload{name: a.Name, size: a.Size, file: f, hash: sha256.New()}
	t.mu.Unlock()
	*id = n
	return nil
}

func (t *Transfer) get(id uint64) (*upload, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	u := t.open[id]
	if u == nil {
		return nil, fmt.Errorf("no upload %d", id)
	}
	return u, nil
}

// Chunk checks a chunk's offset and CRC-32C and writes it.
func (t *Transfer) Chunk(a ChunkArgs, written *int64) error {
	u, err := t.get(a.ID)
	if err != nil {
		return err
	}
	if a.Offset != u.written {
		return fmt.Errorf("chunk at %d, expected %d", a.Offset, u.written)
	}
	if crc32.Checksum(a.Data, castagnoli) != a.CRC32C {
		return errors.New("CRC-32C mismatch")
	}
	if _, err := u.file.Write(a.Data); err != nil {
		return err
	}
	u.hash.Write(a.Data)
	u.written += int64(len(a.Data))
	*written = u.written
	return nil
}

// Commit checks size and SHA-256, then (fsync,) rename and (directory fsync).
func (t *Transfer) Commit(a CommitArgs, size *int64) error {
	u, err := t.get(a.ID)
	if err != nil {
		return err
	}
	t.mu.Lock()
	delete(t.open, a.ID)
	t.mu.Unlock()
	defer u.file.Close()
	if u.written != u.size {
		return fmt.Errorf("file ended at %d, declared %d", u.written, u.size)
	}
	if !bytes.Equal(u.hash.Sum(nil), a.SHA256) {
		os.Remove(u.file.Name())
		return errors.New("SHA-256 mismatch")
	}
	if t.fsync {
		if err := u.file.Sync(); err != nil {
			return err
		}
	}
	final := filepath.Join(t.root, u.name)
	if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
		return err
	}
	if err := os.Rename(u.file.Name(), final); err != nil {
		return err
	}
	if t.fsync {
		d, err := os.Open(filepath.Dir(final))
		if err != nil {
			return err
		}
		defer d.Close()
		if err := d.Sync(); err != nil {
			return err
		}
	}
	*size = u.written
	return nil
}

func netrpcServerMain(args []string) error {
	fs := flag.NewFlagSet("netrpc-server", flag.ExitOnError)
	addr := fs.String("listen", "", "socket path or unix:<path>")
	root := fs.String("root", "", "directory the uploads are committed under")
	fsync := fs.Bool("fsync", true, "fsync each file before its rename and the directory after")
	control := fs.Bool("control", false, "driven by nearwire-bench over stdin/stdout (control.go)")
	fs.Parse(args)
	if *addr == "" || *root == "" {
		return errors.New("netrpc-server: -listen and -root are required")
	}
	srv := rpc.NewServer()
	if err := srv.Register(&Transfer{root: *root, fsync: *fsync, open: map[uint64]*upload{}}); err != nil {
		return err
	}
	l, address, err := listen(*addr)
	if err != nil {
		return err
	}
	serveUntilDone(address, *control, acceptAll(l, func(c net.Conn) { srv.ServeConn(c) }))
	return nil
}
