# The one summary of paired timings, for scripts/bench/paired.sh and
# scripts/bench/peers.sh. Each input line is one round, "A B": the times of
# two commands taken in that round. Prints "MA MB MR Q1 Q3 N": the median
# of A, the median of B, the median of the per-round ratios A/B and that
# ratio's quartiles, over N rounds (a round whose B is not above 0 is left
# out). N is 0 when no round counts.
function sorted(x, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t } }
function med(x, n) { return x[int((n + 1) / 2)] }
function q(x, n, p) { return x[int(p * (n - 1)) + 1] }
$2 > 0 { n++; a[n] = $1; b[n] = $2; r[n] = $1 / $2 }
END {
	if (!n) { print 0, 0, 0, 0, 0, 0; exit }
	sorted(a, n); sorted(b, n); sorted(r, n)
	print med(a, n), med(b, n), med(r, n), q(r, n, 0.25), q(r, n, 0.75), n
}
