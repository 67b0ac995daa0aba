// placeholder: replaced by the real backend
#include "backends.h"
void usdtkit__arm_parse_operand(const struct usdtkit_arch *arch, struct usdtkit_lexer *lx, struct usdtkit_arg *arg)
{
	(void)arch;
	usdtkit__fail(lx, arg, lx->cur, "not implemented");
}
