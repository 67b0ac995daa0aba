// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*!re2c
	// What every arch lexer (arch/<a>/<a>.re) shares, included at its
	// top (re2c -I arch, cmake/Re2c.cmake). This block is not local:
	// its configuration and definitions hold for every block after it
	// in the including file. Comments here stay out of the generated C.

	// the scanners read through USDTKIT_PEEK (core/spec/lex.h): a virtual
	// NUL at the end of the operand, so no bounds checks (yyfill)
	re2c:api = custom;
	re2c:api:style = free-form;
	re2c:define:YYCTYPE = "unsigned char";
	re2c:define:YYPEEK = "USDTKIT_PEEK(lx, lx->cur)";
	re2c:define:YYSKIP = "lx->cur++;";
	re2c:define:YYBACKUP = "YYMARKER = lx->cur;";
	re2c:define:YYRESTORE = "lx->cur = YYMARKER;";
	re2c:yyfill:enable = 0;
	// tags, for the whole-operand fast paths that enable them
	// (re2c:tags = 1): each is a pointer into the operand
	re2c:define:YYSTAGP = "@@{tag} = lx->cur;";
	re2c:define:YYSTAGN = "@@{tag} = NULL;";
	re2c:define:YYSHIFTSTAG = "@@{tag} += @@{shift};";

	// the token grammars' symbols and GAS integer literals
	ident = [A-Za-z_.][A-Za-z0-9_.$]*;
	num = "0" [xX] [0-9a-fA-F]+ | "0" [bB] [01]+ | [0-9]+;

	// the fast paths' decimal (usdtkit__fast_num in core/spec/lex.h), and
	// what ends an operand: a blank or the (virtual) NUL
	fdec = "-"? ("0" | [1-9] [0-9]*);
	feop = [\x00 \t\n\r\v\f];
*/
