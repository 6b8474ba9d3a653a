// containerd-hosts prints, one JSON object a line and in the order containerd tries them,
// the registry hosts containerd's CRI plugin would pull an image reference from when its
// registry config_path is the given directory. It runs containerd's own hosts.toml parser,
// the same calls the CRI plugin makes, so a test can check what a node will really do.
//
// Usage: containerd-hosts <config_path> <image reference>
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/containerd/containerd/v2/core/remotes/docker"
	"github.com/containerd/containerd/v2/core/remotes/docker/config"
	"github.com/containerd/errdefs"
	"github.com/distribution/reference"
)

type host struct {
	URL          string   `json:"url"`
	Path         string   `json:"path"`
	Capabilities []string `json:"capabilities"`
}

var capabilityNames = []struct {
	capability docker.HostCapabilities
	name       string
}{
	{docker.HostCapabilityPull, "pull"},
	{docker.HostCapabilityResolve, "resolve"},
	{docker.HostCapabilityPush, "push"},
	{docker.HostCapabilityReferrers, "referrers"},
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: containerd-hosts <config_path> <image reference>")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "containerd-hosts:", err)
		os.Exit(1)
	}
}

func run(configPath, image string) error {
	// The CRI plugin normalizes the reference first: "busybox" becomes docker.io/library/busybox:latest.
	named, err := reference.ParseDockerRef(image)
	if err != nil {
		return fmt.Errorf("image reference %q: %w", image, err)
	}
	options := config.HostOptions{HostDir: hostDirFromRoots(filepath.SplitList(configPath))}
	hosts, err := config.ConfigureHosts(context.Background(), options)(reference.Domain(named))
	if err != nil {
		return fmt.Errorf("hosts of %s: %w", reference.Domain(named), err)
	}
	out := json.NewEncoder(os.Stdout)
	for _, h := range hosts {
		var capabilities []string
		for _, c := range capabilityNames {
			if h.Capabilities.Has(c.capability) {
				capabilities = append(capabilities, c.name)
			}
		}
		if err := out.Encode(host{URL: h.Scheme + "://" + h.Host, Path: h.Path, Capabilities: capabilities}); err != nil {
			return err
		}
	}
	return nil
}

// hostDirFromRoots is the CRI plugin's own lookup across a config_path list (it is unexported there).
func hostDirFromRoots(roots []string) func(string) (string, error) {
	return func(host string) (dir string, err error) {
		for _, root := range roots {
			dir, err = config.HostDirFromRoot(root)(host)
			if (err != nil && !errdefs.IsNotFound(err)) || dir != "" {
				break
			}
		}
		return
	}
}
