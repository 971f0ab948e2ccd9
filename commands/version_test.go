package commands

import (
	"runtime/debug"
	"testing"
)

// stamp: a release's -ldflags win; a build in a checkout is "dev" with its
// commit, as 'go run .' is "dev" without one, not the pseudo-version go
// build makes of the revision; a tag or a fetched module keeps its version.
func TestStamp(t *testing.T) {
	const rev = "a59f55a698bceed9e5765895f5a2ec7077717d36"
	vcs := func(version string, modified bool) *debug.BuildInfo {
		m := "false"
		if modified {
			m = "true"
		}
		return &debug.BuildInfo{Main: debug.Module{Version: version}, Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.time", Value: "2026-11-24T16:10:12Z"}, {Key: "vcs.modified", Value: m},
		}}
	}
	for _, tc := range []struct {
		name                  string
		version, commit, date string
		bi                    *debug.BuildInfo
		want                  [3]string
	}{
		{"go run", "", "", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, [3]string{"dev", "", ""}},
		{"go build in a checkout", "", "", "", vcs("v0.0.0-20261124161012-a59f55a698bc", false), [3]string{"dev", "a59f55a698bc", "2026-11-24T16:10:12Z"}},
		{"go build, changed", "", "", "", vcs("v0.0.0-20261124161012-a59f55a698bc+dirty", true), [3]string{"dev", "a59f55a698bc-dirty", "2026-11-24T16:10:12Z"}},
		{"go build after a tag", "", "", "", vcs("v1.2.4-0.20261124161012-a59f55a698bc", false), [3]string{"dev", "a59f55a698bc", "2026-11-24T16:10:12Z"}},
		{"go build at a tag", "", "", "", vcs("v1.2.3", false), [3]string{"v1.2.3", "a59f55a698bc", "2026-11-24T16:10:12Z"}},
		{"go build -buildvcs=false", "", "", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, [3]string{"dev", "", ""}},
		{"go install of a module", "", "", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261124161012-a59f55a698bc"}}, [3]string{"v0.0.0-20261124161012-a59f55a698bc", "", ""}},
		{"release", "v1.2.3", rev, "2026-11-23T10:00:00Z", &debug.BuildInfo{}, [3]string{"v1.2.3", "a59f55a698bc", "2026-11-23T10:00:00Z"}},
	} {
		v, c, d := stamp(tc.version, tc.commit, tc.date, tc.bi)
		if got := [3]string{v, c, d}; got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
