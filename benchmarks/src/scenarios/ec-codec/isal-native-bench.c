// ISA-L's own speed for the ec-codec scenario: the calls Hadoop's native coder makes
// (gf_gen_cauchy1_matrix, gf_invert_matrix, ec_init_tables, ec_encode_data), from C, on the same
// stripes the other columns code. Hadoop's native coder cannot load from Maven's jars (they carry
// no libhadoop), so this stands in for it. Built by the scenario with cc against Debian's libisal.
// Usage: isal-native-bench <data> <parity> <cellBytes> <erasures> <rounds> <roundMs>
// Prints {"mibPerSecond":[...]}: data MiB of whole stripes encoded (erasures 0) or decoded per
// second, one figure per round, after one unmeasured round.
#include <isa-l/erasure_code.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
  if (argc != 7) {
    fprintf(stderr, "usage: %s data parity cellBytes erasures rounds roundMs\n", argv[0]);
    return 2;
  }
  int d = atoi(argv[1]), p = atoi(argv[2]), n = atoi(argv[3]), e = atoi(argv[4]);
  int rounds = atoi(argv[5]);
  double round_s = atoi(argv[6]) / 1000.0;
  if (d < 1 || p < 1 || d + p > 255 || n < 1 || e < 0 || e > p || e > d || rounds < 1) return 2;
  int all = d + p;
  unsigned char *encode_matrix = calloc((size_t)all * d, 1);
  unsigned char *units[255];
  for (int i = 0; i < all; i++) units[i] = malloc((size_t)n);
  for (int j = 0; j < d; j++)
    for (int t = 0; t < n; t++) units[j][t] = (unsigned char)(131 * j + 7 * t + (t >> 8));
  gf_gen_cauchy1_matrix(encode_matrix, all, d);
  unsigned char *tables = malloc((size_t)32 * d * p);
  ec_init_tables(d, p, &encode_matrix[d * d], tables);
  ec_encode_data(n, d, p, tables, units, &units[d]);

  // Decode: units 0..e-1 lost; the first d present units (e..e+d-1) are used, as Hadoop does.
  unsigned char *sub = malloc((size_t)d * d), *inverse = malloc((size_t)d * d);
  unsigned char *decode_tables = malloc((size_t)32 * d * (e > 0 ? e : 1));
  unsigned char *outputs[255];
  if (e > 0) {
    for (int r = 0; r < d; r++) memcpy(&sub[r * d], &encode_matrix[(e + r) * d], (size_t)d);
    if (gf_invert_matrix(sub, inverse, d) != 0) return 3;
    ec_init_tables(d, e, inverse, decode_tables); // rows 0..e-1 of the inverse rebuild units 0..e-1
    for (int i = 0; i < e; i++) outputs[i] = malloc((size_t)n);
  }
  printf("{\"mibPerSecond\":[");
  for (int round = -1; round < rounds; round++) {
    double start = now_s(), elapsed;
    long stripes = 0;
    do {
      if (e == 0) ec_encode_data(n, d, p, tables, units, &units[d]);
      else ec_encode_data(n, d, e, decode_tables, &units[e], outputs);
      stripes++;
      elapsed = now_s() - start;
    } while (elapsed < round_s);
    if (round >= 0) printf("%s%.3f", round > 0 ? "," : "", stripes * (double)d * n / (1 << 20) / elapsed);
  }
  if (e > 0 && memcmp(outputs[0], units[0], (size_t)n) != 0) return 4; // the rebuilt unit must match
  printf("]}\n");
  return 0;
}
