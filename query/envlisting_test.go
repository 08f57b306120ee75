package query

import (
	"strings"
	"testing"
)

func TestDropEnvListings(t *testing.T) {
	issue := "DataArray.quantile does not honor `keep_attrs`\n\nreturns\n\n<details>\nINSTALLED VERSIONS\n------------------\ncommit: 69c7e01e5167a3137c285cb50d1978252bb8bcbf\npython: 3.6.8 |Anaconda, Inc.| (default, Dec 30 2018, 01:22:34)\n[GCC 7.3.0]\npython-bits: 64\nOS: Linux\nOS-release: 4.15.0-60-generic\nmachine: x86_64\nprocessor: x86_64\nbyteorder: little\nLC_ALL: None\nLANG: en_CA.UTF-8\nLOCALE: en_CA.UTF-8\nlibhdf5: 1.10.2\nlibnetcdf: 4.6.1\n</details>\nthe attrs are lost"
	q := Parse(issue)
	for _, w := range q.Words {
		switch w {
		case "libhdf5", "byteorder", "anaconda", "x86":
			t.Errorf("word %q of the environment listing searched: %v", w, q.Words)
		}
	}
	for _, w := range []string{"quantile", "keep", "attrs", "lost"} {
		if !contains(q.Words, w) {
			t.Errorf("word %q of the issue lost: %v", w, q.Words)
		}
	}
	// configuration keys with words for values are not a listing
	cfg := "scrape fails\nglobal:\n  scrape_interval: 15s\n  job_name: node\n  metrics_path: /metrics\n  scheme: https\n  honor_labels: true\n"
	if got := dropEnvListings(cfg); got != cfg {
		t.Errorf("a configuration was dropped:\n%s", got)
	}
	pip := "import fails\nrequests==2.31.0\nurllib3==2.0.4\nidna==3.4\ncharset-normalizer==3.2.0\ncertifi==2023.7.22\nthe end"
	if got := dropEnvListings(pip); strings.Contains(got, "urllib3") || !strings.Contains(got, "import fails") || !strings.Contains(got, "the end") {
		t.Errorf("pip freeze listing: %q", got)
	}
}
