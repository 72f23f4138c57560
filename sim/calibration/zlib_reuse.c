/* Real-C anchor for T9's zlib_reuse check: what C zlib's state costs when
 * built for every page, as upstream InnoDB builds it, against state kept
 * and reset, on this machine's glibc malloc.
 *
 * Per call, as page_zip_compress and page_zip_decompress do (page0zip.cc,
 * MySQL 5.6): malloc one heap (mem_heap_create: about 330 KiB to compress
 * an 8 KiB block of a 16 KiB page, a page plus three pointers a record to
 * decompress), give zlib its memory from it zeroed (page_zip_zalloc is
 * mem_heap_zalloc), deflateInit2 at level 6, windowBits 14, memLevel 9
 * (inflateInit2 at windowBits 14), one stream, End, free the heap.
 * Reused: the same zlib stream for every page, deflateReset or
 * inflateReset between them.
 *
 * Reads a page of at most 16 KiB from PAGE and prints, for THREADS threads
 * each running N operations of each mode, the modes interleaved, the mean
 * microseconds an operation. BENCHMARKS.md (T9) ran it on czlib's sysbench input rows1,
 * 68 sysbench rows (13 KB), written by
 *   python3 -c 'import sys; sys.path.insert(0, "compress/internal/czlib/testdata"); import gen; sys.stdout.buffer.write(gen.golden_input("rows1"))' > rows1
 *
 * Build: cc -O2 -o zlib_reuse zlib_reuse.c -lz -lpthread
 * Usage: zlib_reuse PAGE N THREADS */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

/* The heaps' first blocks: page_zip_compress's for an 8 KiB block (the
 * per-record arrays of 200 records included), page_zip_decompress's for 200
 * records. */
enum { compress_heap = 8192 + 200 * 8 + 4 * 16384 + (512 << MAX_MEM_LEVEL),
       decompress_heap = 200 * 3 * 8 + 16384 };

static void die(const char *what) {
	fprintf(stderr, "zlib_reuse: %s failed\n", what);
	exit(1);
}

static unsigned char page[16384];
static size_t page_len;
static unsigned char packed[20000];
static uLong packed_len;
static long n_ops;

/* heap is a bump allocator over malloc'd blocks, as InnoDB's mem_heap:
 * when a block is full it mallocs another (mem_heap_add_block sizes it
 * otherwise), and the heap frees them all at once. InnoDB also takes its
 * own arrays from the same heap, which this leaves out. */
struct heap {
	unsigned char *blocks[8];
	int n_blocks;
	size_t used, size;
};

static void heap_create(struct heap *h, size_t size) {
	h->blocks[0] = malloc(size);
	if (h->blocks[0] == NULL)
		die("malloc");
	h->n_blocks = 1;
	h->used = 0;
	h->size = size;
}

static void heap_destroy(struct heap *h) {
	for (int i = 0; i < h->n_blocks; i++)
		free(h->blocks[i]);
}

static voidpf heap_zalloc(voidpf opaque, uInt items, uInt size) {
	struct heap *h = opaque;
	size_t n = ((size_t)items * size + 7) & ~(size_t)7;
	if (h->used + n > h->size) {
		if (h->n_blocks == 8)
			return Z_NULL;
		size_t grow = 2 * h->size > n ? 2 * h->size : n;
		h->blocks[h->n_blocks] = malloc(grow);
		if (h->blocks[h->n_blocks] == NULL)
			return Z_NULL;
		h->n_blocks++;
		h->used = 0;
		h->size = grow;
	}
	void *p = h->blocks[h->n_blocks - 1] + h->used;
	h->used += n;
	memset(p, 0, n);
	return p;
}

static void heap_free(voidpf opaque, voidpf address) {
	(void)opaque;
	(void)address;
}

static double now_us(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void deflate_once(z_stream *s, unsigned char *out) {
	s->next_in = page;
	s->avail_in = page_len;
	s->next_out = out;
	s->avail_out = sizeof packed;
	if (deflate(s, Z_FINISH) != Z_STREAM_END)
		die("deflate");
}

static void inflate_once(z_stream *s, unsigned char *out) {
	s->next_in = packed;
	s->avail_in = packed_len;
	s->next_out = out;
	s->avail_out = sizeof page;
	if (inflate(s, Z_FINISH) != Z_STREAM_END || s->total_out != page_len || memcmp(out, page, page_len) != 0)
		die("inflate");
}

static void compress_per_call(unsigned char *out) {
	struct heap h;
	heap_create(&h, compress_heap);
	z_stream s = {.zalloc = heap_zalloc, .zfree = heap_free, .opaque = &h};
	if (deflateInit2(&s, 6, Z_DEFLATED, 14, MAX_MEM_LEVEL, Z_DEFAULT_STRATEGY) != Z_OK)
		die("deflateInit2");
	deflate_once(&s, out);
	deflateEnd(&s);
	heap_destroy(&h);
}

static void decompress_per_call(unsigned char *out) {
	struct heap h;
	heap_create(&h, decompress_heap);
	z_stream s = {.zalloc = heap_zalloc, .zfree = heap_free, .opaque = &h};
	if (inflateInit2(&s, 14) != Z_OK)
		die("inflateInit2");
	inflate_once(&s, out);
	inflateEnd(&s);
	heap_destroy(&h);
}

struct result {
	double compress_fresh, compress_reused, decompress_fresh, decompress_reused;
};

/* worker runs the four modes in interleaved batches of batch_ops pages,
 * alternating which of a pair goes first, so that drift in the machine's
 * speed falls on both modes alike. */
enum { batch_ops = 50 };

static void *worker(void *arg) {
	struct result *r = arg;
	unsigned char *out = malloc(sizeof packed);
	if (out == NULL)
		die("malloc");
	z_stream d = {0}, in = {0};
	if (deflateInit2(&d, 6, Z_DEFLATED, 14, MAX_MEM_LEVEL, Z_DEFAULT_STRATEGY) != Z_OK)
		die("deflateInit2");
	if (inflateInit2(&in, 14) != Z_OK)
		die("inflateInit2");
	double cf = 0, cr = 0, df = 0, dr = 0;
	long done = 0;
	for (int round = 0; done < n_ops; round++) {
		long n = n_ops - done < batch_ops ? n_ops - done : batch_ops;
		for (int k = 0; k < 2; k++) {
			double t = now_us();
			if ((k + round) % 2 == 0) {
				for (long i = 0; i < n; i++)
					compress_per_call(out);
				cf += now_us() - t;
				t = now_us();
				for (long i = 0; i < n; i++)
					decompress_per_call(out);
				df += now_us() - t;
			} else {
				for (long i = 0; i < n; i++) {
					deflate_once(&d, out);
					deflateReset(&d);
				}
				cr += now_us() - t;
				t = now_us();
				for (long i = 0; i < n; i++) {
					inflate_once(&in, out);
					inflateReset(&in);
				}
				dr += now_us() - t;
			}
		}
		done += n;
	}
	deflateEnd(&d);
	inflateEnd(&in);
	r->compress_fresh = cf / n_ops;
	r->compress_reused = cr / n_ops;
	r->decompress_fresh = df / n_ops;
	r->decompress_reused = dr / n_ops;
	free(out);
	return NULL;
}

int main(int argc, char **argv) {
	if (argc != 4) {
		fprintf(stderr, "usage: zlib_reuse PAGE N THREADS\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "rb");
	if (f == NULL)
		die("opening PAGE");
	page_len = fread(page, 1, sizeof page, f);
	if (page_len == 0)
		die("reading PAGE");
	fclose(f);
	n_ops = atol(argv[2]);
	int threads = atoi(argv[3]);
	if (n_ops < 1 || threads < 1 || threads > 64)
		die("N >= 1 and THREADS in 1..64");
	z_stream s = {0};
	if (deflateInit2(&s, 6, Z_DEFLATED, 14, MAX_MEM_LEVEL, Z_DEFAULT_STRATEGY) != Z_OK)
		die("deflateInit2");
	s.next_in = page;
	s.avail_in = page_len;
	s.next_out = packed;
	s.avail_out = sizeof packed;
	if (deflate(&s, Z_FINISH) != Z_STREAM_END)
		die("deflate");
	packed_len = s.total_out;
	deflateEnd(&s);

	pthread_t tid[64];
	struct result res[64];
	for (int i = 0; i < threads; i++)
		if (pthread_create(&tid[i], NULL, worker, &res[i]) != 0)
			die("pthread_create");
	struct result sum = {0};
	for (int i = 0; i < threads; i++) {
		pthread_join(tid[i], NULL);
		sum.compress_fresh += res[i].compress_fresh / threads;
		sum.compress_reused += res[i].compress_reused / threads;
		sum.decompress_fresh += res[i].decompress_fresh / threads;
		sum.decompress_reused += res[i].decompress_reused / threads;
	}
	printf("threads %d, %ld ops each, %s (%zu bytes) packed to %lu bytes; mean us an operation:\n", threads, n_ops, argv[1], page_len,
	       packed_len);
	printf("compress   per call %.1f  reused %.1f  (per call / reused %.3f)\n", sum.compress_fresh, sum.compress_reused,
	       sum.compress_fresh / sum.compress_reused);
	printf("decompress per call %.1f  reused %.1f  (per call / reused %.3f)\n", sum.decompress_fresh, sum.decompress_reused,
	       sum.decompress_fresh / sum.decompress_reused);
	return 0;
}
