/* commands.h — the subcommands of the cuzk command, one file each in tools/cuzk. */
#ifndef CUZK_TOOLS_COMMANDS_H
#define CUZK_TOOLS_COMMANDS_H

#include <stddef.h>

int cuzk__selftest_main(int argc, char **argv); /* selftest.c */
int cuzk__cmd_groth16(int argc, char **argv);   /* groth16_cmd.c */
int cuzk__cmd_zkey(int argc, char **argv);      /* groth16_cmd.c */
int cuzk__cmd_wtns(int argc, char **argv);      /* groth16_cmd.c */
int cuzk__cmd_info(int argc, char **argv);      /* info_cmd.c */
int cuzk__cmd_ptau(int argc, char **argv);      /* ptau_cmd.c */
int cuzk__cmd_gen_circuit(int argc, char **argv); /* gen_cmd.c */
int cuzk__cmd_prove(int argc, char **argv);     /* prove_cmd.c */
int cuzk__cmd_verify(int argc, char **argv);    /* prove_cmd.c */
int cuzk__cmd_setup(int argc, char **argv);     /* setup_cmd.c */
int cuzk__cmd_import(int argc, char **argv);    /* import_cmd.c */
int cuzk__cmd_daemon(int argc, char **argv);    /* daemon_cmd.c */
int cuzk__cmd_submit(int argc, char **argv);    /* client_cmd.c */
int cuzk__cmd_await(int argc, char **argv);     /* client_cmd.c */
int cuzk__cmd_cancel(int argc, char **argv);    /* client_cmd.c */
int cuzk__cmd_jobs(int argc, char **argv);      /* client_cmd.c */
int cuzk__cmd_status(int argc, char **argv);    /* client_cmd.c */
/* `cuzk prove --addr A ...`: the daemon proves (client_cmd.c). */
int cuzk__client_prove(int argc, char **argv);


/* ---- what the daemon's client commands share (client_cmd.c) -------------- */
#include "http_client.h"

/* Where a client connects when neither --addr nor $CUZK_ADDR says. */
#define CUZK_CLIENT_DEFAULT_ADDR "unix:/run/cuzk/cuzk.sock"

/* One witness of a job: a local file to upload, or a path on the server. */
typedef struct {
    const char *path;
    int on_server;
} cuzk__client_witness;

/* What a submission names (POST /v1/jobs and /v1/prove); w holds n. */
typedef struct {
    const char *key, *priority, *request_id;
    cuzk__client_witness *w;
    size_t n;
} cuzk__client_job;

/* A submission's body: its pieces (the files streamed) and content type. */
typedef struct {
    cuzk__http_piece *pieces;
    size_t n;
    char content_type[96];
} cuzk__client_body;

/* The client of --addr (else $CUZK_ADDR, else the default) with the token
 * of --token-file (else $CUZK_TOKEN, else none); 0 after printing why. */
int cuzk__client_setup(cuzk__http_client *c, const char *cmd, const char *addr,
                       const char *token_file);
/* argv[*i] when it is an option of a submission (--key, --priority,
 * --request-id, --witness F.., --witness-path P..): stores it in *job (whose w
 * has room for argc entries) and returns 1, *i past its values; 0 when it is
 * another option; -1 after printing why. */
int cuzk__client_job_opt(cuzk__client_job *job, const char *cmd, int argc, char **argv, int *i);
/* 1 when *job has a key and a witness; else 0 after printing what is missing. */
int cuzk__client_job_ok(const cuzk__client_job *job, const char *cmd);
/* The body that submits job: JSON when every witness is on the server, else
 * multipart/form-data with the files streamed; 0 when out of memory. */
int cuzk__client_body_make(cuzk__client_body *b, const cuzk__client_job *job);
void cuzk__client_body_free(cuzk__client_body *b);
/* A failed answer in words: the error's message, status name and HTTP code
 * ("unknown key 'x' (404 NOT_FOUND)"), into buf. */
const char *cuzk__client_error(const cuzk__http_response *rs, char *buf, size_t n);
/* Milliseconds on the monotonic clock. */
double cuzk__client_now_ms(void);
/*
 * Long-polls job id (GET /v1/jobs/ID/await) until it ends or deadline_ms
 * (cuzk__client_now_ms; 0: none) passes. 1: the job ended, 0: the deadline
 * passed, and *rs (status 200) holds the job's last state; -1: a failed
 * request, msg says why, *rs has no body and the HTTP status of a refusal
 * (0 when no answer came).
 */
int cuzk__client_await(const cuzk__http_client *c, uint64_t id, double deadline_ms,
                       cuzk__http_response *rs, char *msg, size_t msg_len);

/* --backend auto uses a GPU only from this domain size (log2) up. */
#define CUZK_AUTO_GPU_MIN_LOG 16

/* The file arguments of a command, for cuzk__cli_files_ok: how the command
 * line names them ("-o", "--params", "<proof.json>"), their paths (NULL
 * entries are skipped), and whether they are written (1) or read (0). */
typedef struct {
    const char *opt;
    const char *const *paths;
    size_t n;
    int output;
} cuzk__cli_files;

/*
 * 1 when every output can be written: it is not a directory (or block
 * device, socket), its folder exists and is writable (unless it is written
 * in place: a character device, a FIFO, /dev/stdout), it names no input and
 * no other output (by device and inode when the files exist, else by
 * normalized path). Else 0 after printing why on stderr, naming both
 * arguments: "cuzk prove: -o circuit.params is also the --params input".
 * Commands call it before any work and exit with status 2 on 0 (outpath.c).
 */
int cuzk__cli_files_ok(const char *cmd, const cuzk__cli_files *files, size_t n);
/* cuzk__cli_files_ok of the single output path ("-o"). */
int cuzk__cli_output_ok(const char *path, const char *cmd);

struct cuzk_backend_ops;
/* The backend named by --backend (cpu, gpu, auto; NULL = cpu), or NULL after
 * printing why on stderr (backend_pick.c). */
const struct cuzk_backend_ops *cuzk__cli_backend(const char *name, const char *cmd);
/* CUDA devices present (0 without a device, a driver or a CUDA build). */
int cuzk__cli_gpu_count(void);

/* Development setups (dev_setup.c). */
#include "groth16/setup.h"
#define CUZK_CLI_SEED_HEX_MAX 512 /* hex digits of --seed: 256 bytes */
/* --seed HEX (an even number of digits, optional 0x) -> the INSECURE
 * deterministic toxic waste of cuzk__setup_toxic_from_seed; 0 on a bad string. */
int cuzk__cli_setup_seed(cuzk_setup_toxic *tw, const char *hex);
/* cuzk__groth16_setup_dev_accel with the GPU's fixed-base accelerator
 * (device 0) when use_gpu, else the CPU; tw NULL = fresh random. */
cuzk_status cuzk__cli_dev_setup(cuzk_params *p, const cuzk_circuit *c, const cuzk_setup_toxic *tw,
                                unsigned threads, int use_gpu, cuzk_setup_times *tm,
                                cuzk_error *err);

#endif
