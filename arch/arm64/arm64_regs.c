// placeholder: replaced by the real backend
#include "backends.h"
static const struct usdtkit_regdef regs[1] = { { "r0", 0, 8, 0 } };
static const int16_t offs[1] = { 0 };
static const struct usdtkit_layout lay = { .name = "x", .size = 8, .slot_size = 8, .nregs = 1, .offsets = offs };
const struct usdtkit_arch usdtkit__arch_aarch64 = { .name = "aarch64", .ptr_size = 8, .parse_operand = usdtkit__arm64_parse_operand, .regs = regs, .nregs = 1, .native = &lay };
