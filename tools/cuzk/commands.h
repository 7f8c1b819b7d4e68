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
