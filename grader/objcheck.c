/* objcheck — see objcheck.h for the rules. One read of the object into
 * memory, every offset checked against its size before use. */
#include "objcheck.h"
#include "ppview.h"
#include "strbuf.h"

#include <ctype.h>
#include <elf.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Undefined references a student's object may make. */
static const char *const allowed_calls[] = {
	/* the CUDA runtime: launches (all wrapped by the launch recorder),
	 * queries, errors, memset of the launcher's own buffers */
	"cudaLaunchKernel", "cudaLaunchKernelExC", "cudaLaunchCooperativeKernel",
	"__cudaLaunchKernel", "__cudaPushCallConfiguration",
	"__cudaPopCallConfiguration", "__cudaGetKernel", "cudaGetDevice",
	"cudaGetDeviceCount", "cudaGetDeviceProperties",
	"cudaGetDeviceProperties_v2", "cudaDeviceGetAttribute",
	"cudaOccupancyMaxActiveBlocksPerMultiprocessor",
	"cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
	"cudaOccupancyAvailableDynamicSMemPerBlock",
	"cudaOccupancyMaxPotentialClusterSize",
	"cudaOccupancyMaxActiveClusters", "cudaFuncGetAttributes",
	"cudaFuncSetAttribute", "cudaFuncSetCacheConfig", "cudaFuncGetName",
	"cudaGetLastError", "cudaPeekAtLastError", "cudaGetErrorString",
	"cudaGetErrorName", "cudaMemset", "cudaMemsetAsync",
	/* a __constant__ parameter (textbook style): writes only the file's
	 * own symbol, whose host shadow nvcc keeps static */
	"cudaMemcpyToSymbol", "cudaMemcpyToSymbolAsync",
	"cudaDeviceSynchronize", "cudaStreamSynchronize",
	"cudaDriverGetVersion",
	"cudaRuntimeGetVersion", "cudalab_todo",
	/* output for debugging: stdout and stderr are never parsed (GCC
	 * turns fprintf(stderr, "text\n") into fwrite, printf("x\n") into
	 * puts; a kernel file holds no FILE but stdout and stderr) */
	"printf", "puts", "putchar", "fprintf", "fputs", "fputc", "fwrite",
	"fflush",
	"stdout", "stderr", "snprintf", "sprintf", "vprintf", "__printf_chk",
	"__fprintf_chk", "__snprintf_chk", "__sprintf_chk",
	/* host memory and string helpers the compiler may call */
	"memcpy", "memset", "memmove", "memcmp", "strlen", "__stack_chk_fail",
	"__assert_fail", "__memcpy_chk", "__memset_chk",
	/* host math */
	"sqrt", "sqrtf", "cbrt", "cbrtf", "ceil", "ceilf", "floor", "floorf",
	"round", "roundf", "lround", "lroundf", "trunc", "truncf", "log",
	"logf", "log2", "log2f", "log10", "log10f", "exp", "expf", "exp2",
	"exp2f", "pow", "powf", "fabs", "fabsf", "fmin", "fminf", "fmax",
	"fmaxf", "fma", "fmaf", "ldexp", "ldexpf", "frexp", "frexpf",
	/* the C++ runtime: exceptions, static locals (nvcc's stubs use them) */
	"__gxx_personality_v0", "_Unwind_Resume", "__cxa_guard_acquire",
	"__cxa_guard_release", "__cxa_guard_abort", "__cxa_begin_catch",
	"__cxa_end_catch", "_ZSt9terminatev", "__cxa_call_terminate",
	/* throwing one (a launcher's error check that throws
	 * std::runtime_error: it ends the student's process, a crash) */
	"__cxa_allocate_exception", "__cxa_free_exception", "__cxa_throw",
	"__cxa_rethrow", "_GLOBAL_OFFSET_TABLE_",
	/* nvcc's host shadow of a __device__ function calls exit(), and so
	 * does the error-check macro of published code (CUDA_CHECK: exit or
	 * abort on a failed call); ending early is harmless: the run then has
	 * no harness_end (a crash) */
	"exit", "abort",
	NULL,
};

/* nvcc's registration calls: only from nvcc's own static functions. */
static const char *const registration_calls[] = {
	"atexit", "__cudaRegisterFatBinary", "__cudaRegisterFatBinaryEnd",
	"__cudaUnregisterFatBinary", "__cudaRegisterFunction",
	"__cudaRegisterVar", "__cudaRegisterManagedVar", "__cudaInitModule",
	"__cudaRegisterTexture", "__cudaRegisterSurface", NULL,
};

/* The static functions nvcc writes for registration, each with its one
 * parameter list (mangled: v for (void), PPv for (void **)). Exact names:
 * a prefix let a student's own __nv_save_fatbinhandle() call atexit (red
 * team, 2026-11-27), and an overload with other parameters is not nvcc's. */
static const char *const registration_functions[] = {
	"__sti____cudaRegisterAll", "v",
	"__nv_cudaEntityRegisterCallback", "PPv",
	"__cudaUnregisterBinaryUtil", "v",
	"__nv_init_managed_rt", "v",
	"__nv_init_managed_rt_with_module", "PPv",
	"__nv_save_fatbinhandle_for_managed_rt", "PPv",
	NULL,
};

/* Sections a compiler and nvcc make; ".rela" + any of them too. */
static const char *const allowed_sections[] = {
	"", ".text", ".text.unlikely", ".text.startup", ".text.hot",
	".text.exit", ".data", ".bss", ".rodata", ".nv_fatbin",
	".nvFatBinSegment", "__nv_module_id", ".init_array", ".comment",
	".note.GNU-stack", ".note.gnu.property", ".eh_frame", ".group",
	".symtab", ".strtab", ".shstrtab", ".symtab_shndx", NULL,
};
static const char *const allowed_section_prefixes[] = {
	".rodata.", ".gcc_except_table", ".data.rel.", ".bss.", ".data.",
	".tbss.", NULL,
};

/* libstdc++'s own namespaces, as mangled source names: the first name of
 * every C++ symbol it exports that is not in std:: (red team, 2026-11-27:
 * a student's __cxxabiv1::__class_type_info::__do_catch, _ZNK10..., took
 * libstdc++'s over for the whole process, the judge's half too, because
 * the list then held _ZN10__cxxabiv1 but not its const form). */
static const char *const library_namespaces[] = {
	"9__gnu_cxx", "10__cxxabiv1", "11__gnu_debug", "10__gnu_norm",
	"14__gnu_parallel", "3abi", NULL,
};

int objcheck_library_name(const char *n)
{
	if (strncmp(n, "_Z", 2))
		return 0;
	const char *p = n + 2;
	/* special names: vtables, typeinfo, thunks, guards, transactional
	 * clones (a static local's _ZGVZ guard is the file's own: checked
	 * by the caller) */
	if (*p == 'T' || (p[0] == 'G' && (p[1] == 'V' || p[1] == 'T')))
		return 1;
	if (!strncmp(p, "nw", 2) || !strncmp(p, "na", 2) ||
	    !strncmp(p, "dl", 2) || !strncmp(p, "da", 2))
		return 1; /* operator new and delete */
	if (*p == 'N')
		for (p++; *p && strchr("rVKRO", *p); p++)
			; /* cv- and ref-qualifiers of a member */
	/* std:: and its abbreviations (Sa Sb Ss Si So Sd: std::ostream's
	 * members are _ZNSo...) */
	if (p[0] == 'S' && p[1] && strchr("tabsiod", p[1]))
		return 1;
	for (const char *const *ns = library_namespaces; *ns; ns++)
		if (!strncmp(p, *ns, strlen(*ns)))
			return 1;
	return 0;
}

static int in_list(const char *const *list, const char *s)
{
	for (; list && *list; list++)
		if (!strcmp(*list, s))
			return 1;
	return 0;
}

static int has_prefix(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (!strncmp(s, *list, strlen(*list)))
			return 1;
	return 0;
}

/* The exception classes of <stdexcept> (and std::exception), whose members
 * and type information a throwing error check references: the prefix of a
 * mangled member (_ZNSt), type_info (_ZTISt), vtable (_ZTVSt) or name
 * (_ZTSSt), then the class. Only undefined references are let through:
 * what links is libstdc++'s own constructors, destructors and what(). */
static int std_exception_ref(const char *n)
{
	static const char *const kinds[] = {"_ZNSt", "_ZNKSt", "_ZTISt",
					    "_ZTVSt", "_ZTSSt", NULL};
	static const char *const classes[] = {
		"9exception", "11logic_error", "13runtime_error",
		"16invalid_argument", "12out_of_range", "12domain_error",
		"12length_error", "11range_error", "14overflow_error",
		"15underflow_error", NULL,
	};
	for (const char *const *k = kinds; *k; k++) {
		size_t kl = strlen(*k);
		if (strncmp(n, *k, kl))
			continue;
		for (const char *const *c = classes; *c; c++)
			if (!strncmp(n + kl, *c, strlen(*c)))
				return 1;
	}
	return 0;
}

/* What building the message of such an exception references (published
 * error checks: throw std::runtime_error(std::string("CUDA error: ") +
 * cudaGetErrorString(e))): the members of std::string (basic_string<char>
 * of the C++11 ABI, const or not), libstdc++'s helpers that throw for
 * them, and operator new and delete, which the inlined members call.
 * Undefined references only, like the exception classes: the code is
 * libstdc++'s own, and none of it opens, runs or writes anything. A copy
 * of an inline library function compiled into the file (std::to_string
 * at -O3) is a definition, still refused (check_defined). */
static int std_string_ref(const char *n)
{
	static const char *const string_members[] = {
		"_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE",
		"_ZNKSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE", NULL,
	};
	static const char *const helpers[] = {
		"_ZSt19__throw_logic_errorPKc", "_ZSt20__throw_length_errorPKc",
		"_ZSt20__throw_out_of_rangePKc",
		"_ZSt24__throw_out_of_range_fmtPKcz",
		"_ZSt17__throw_bad_allocv", "_ZSt28__throw_bad_array_new_lengthv",
		"_Znwm", "_ZdlPv", "_ZdlPvm", NULL,
	};
	for (const char *const *m = string_members; *m; m++)
		if (!strncmp(n, *m, strlen(*m)) && n[strlen(*m)])
			return 1;
	for (const char *const *h = helpers; *h; h++)
		if (!strcmp(n, *h))
			return 1;
	return 0;
}

static void problem(struct objcheck_list *out, const char *fmt, ...)
{
	if (out->count < out->max) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(out->items[out->count].message,
			  sizeof(out->items[0].message), fmt, ap);
		va_end(ap);
	}
	out->count++;
}

/* ---- the ELF file ------------------------------------------------------ */

struct elf {
	unsigned char *data;
	size_t size;
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;
	size_t nsec;
	const char *shstr;
	size_t shstr_size;
	const Elf64_Sym *sym;
	size_t nsym;
	const char *str;
	size_t str_size;
};

static int in_file(const struct elf *e, size_t off, size_t len)
{
	return off <= e->size && len <= e->size - off;
}

static const char *sec_name(const struct elf *e, size_t i)
{
	size_t off = e->sh[i].sh_name;
	if (off >= e->shstr_size)
		return "?";
	return e->shstr + off;
}

static const char *sym_name(const struct elf *e, const Elf64_Sym *s)
{
	if (s->st_name >= e->str_size)
		return "?";
	return e->str + s->st_name;
}

static int elf_open(struct elf *e, const char *path, char *err, size_t errlen)
{
	memset(e, 0, sizeof(*e));
	struct strbuf sb = STRBUF_INIT;
	if (strbuf_read_file(&sb, path) < 0) {
		snprintf(err, errlen, "cannot read the object %s", path);
		strbuf_release(&sb);
		return -1;
	}
	e->data = (unsigned char *)sb.buf;
	e->size = sb.len;
	e->eh = (const Elf64_Ehdr *)e->data;
	if (e->size < sizeof(Elf64_Ehdr) || memcmp(e->eh->e_ident, ELFMAG, SELFMAG) ||
	    e->eh->e_ident[EI_CLASS] != ELFCLASS64 || e->eh->e_type != ET_REL ||
	    e->eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    !in_file(e, e->eh->e_shoff,
		     (size_t)e->eh->e_shnum * sizeof(Elf64_Shdr)) ||
	    e->eh->e_shoff % 8 || e->eh->e_shstrndx >= e->eh->e_shnum) {
		snprintf(err, errlen, "%s is not an ELF64 relocatable object",
			 path);
		free(e->data);
		return -1;
	}
	e->sh = (const Elf64_Shdr *)(e->data + e->eh->e_shoff);
	e->nsec = e->eh->e_shnum;
	const Elf64_Shdr *ss = &e->sh[e->eh->e_shstrndx];
	if (!in_file(e, ss->sh_offset, ss->sh_size) || !ss->sh_size) {
		snprintf(err, errlen, "%s: bad section name table", path);
		free(e->data);
		return -1;
	}
	e->shstr = (const char *)e->data + ss->sh_offset;
	e->shstr_size = ss->sh_size;
	if (e->shstr[e->shstr_size - 1]) {
		snprintf(err, errlen, "%s: bad section name table", path);
		free(e->data);
		return -1;
	}
	for (size_t i = 0; i < e->nsec; i++) {
		if (e->sh[i].sh_type != SHT_SYMTAB)
			continue;
		const Elf64_Shdr *st = &e->sh[i];
		if (st->sh_link >= e->nsec)
			break;
		const Elf64_Shdr *sstr = &e->sh[st->sh_link];
		if (!in_file(e, st->sh_offset, st->sh_size) ||
		    st->sh_offset % 8 ||
		    !in_file(e, sstr->sh_offset, sstr->sh_size) ||
		    !sstr->sh_size)
			break;
		e->sym = (const Elf64_Sym *)(e->data + st->sh_offset);
		e->nsym = st->sh_size / sizeof(Elf64_Sym);
		e->str = (const char *)e->data + sstr->sh_offset;
		e->str_size = sstr->sh_size;
		if (e->str[e->str_size - 1])
			e->sym = NULL, e->nsym = 0;
		break;
	}
	if (!e->sym) {
		snprintf(err, errlen, "%s has no readable symbol table", path);
		free(e->data);
		return -1;
	}
	return 0;
}

static void elf_close(struct elf *e)
{
	free(e->data);
	e->data = NULL;
}

/* The function symbol of section shndx covering offset, or NULL. */
static const Elf64_Sym *function_at(const struct elf *e, size_t shndx,
				    Elf64_Addr offset)
{
	const Elf64_Sym *best = NULL;
	for (size_t i = 1; i < e->nsym; i++) {
		const Elf64_Sym *s = &e->sym[i];
		if (ELF64_ST_TYPE(s->st_info) != STT_FUNC || s->st_shndx != shndx)
			continue;
		if (offset >= s->st_value && offset < s->st_value + s->st_size)
			return s;
		if (s->st_size == 0 && s->st_value <= offset &&
		    (!best || s->st_value > best->st_value))
			best = s;
	}
	return best;
}

/*
 * Whether name is exactly one of nvcc's registration functions: the C
 * internal-linkage mangling "_ZL<len><name>" followed only by the
 * parameter codes (never the bare name: nvcc's are static C++ functions). A student's static function whose name
 * merely contains one (found by the red team: an atexit from
 * "_ZL40evil__sti____cudaRegisterAll...") is not.
 */
static int registration_named(const char *name, const char *f,
			      const char *params)
{
	/* nvcc's are static C++ functions: never the bare name (red team,
	 * 2026-11-24: a local __sti____cudaRegisterAll made in assembly) */
	char prefix[96];
	snprintf(prefix, sizeof(prefix), "_ZL%zu%s%s", strlen(f), f, params);
	if (strncmp(name, prefix, strlen(prefix)))
		return 0;
	/* then at most a GCC clone's suffix (.cold, .part.0, ...): a local
	 * symbol "_ZL24__sti____cudaRegisterAllX" made in assembly is not
	 * nvcc's (red team, 2026-11-24) */
	const char *p = name + strlen(prefix);
	if (*p && *p != '.')
		return 0;
	for (; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '.' && *p != '_')
			return 0;
	return 1;
}

static int registration_function(const char *name)
{
	for (const char *const *f = registration_functions; *f; f += 2)
		if (registration_named(name, f[0], f[1]))
			return 1;
	return 0;
}

static int is_stub(const char *name)
{
	/* _Z<digits>__device_stub__ */
	if (strncmp(name, "_Z", 2))
		return 0;
	const char *p = name + 2;
	if (!isdigit((unsigned char)*p))
		return 0;
	while (isdigit((unsigned char)*p))
		p++;
	return !strncmp(p, "__device_stub__", 15);
}

/*
 * Whether a kernel's (mangled) name holds a name that begins with hx_: the
 * judge's kernels are all named so, and the profiler leaves them out by
 * that prefix (profiler.c: ncu --kernel-name regex:^(?!hx_)). A student's
 * kernel called hx_work (spelt with ## past the text lint) would be left
 * out too, and a decoy kernel's counters would stand for the step. In a
 * mangled name every source name follows its length, so a name begins
 * after a digit (or at the start of an unmangled name); any such name
 * counts: the kernel's own, a namespace's or a template argument's.
 */
static int names_reserved_kernel(const char *k)
{
	for (const char *p = k; (p = strstr(p, "hx_")); p++)
		if (p == k || (p[-1] >= '0' && p[-1] <= '9'))
			return 1;
	return 0;
}

static void check_defined(const struct elf *e, const struct objcheck_rules *r,
			  struct objcheck_list *out)
{
	for (size_t k = 0; r->kernels && r->kernels[k]; k++)
		if (names_reserved_kernel(r->kernels[k]))
			problem(out,
				"has the kernel %s, whose name holds a name "
				"beginning with hx_: that prefix is the "
				"harness's own (its kernels are left out of "
				"the profiler's counters by it); rename it",
				r->kernels[k]);
	for (size_t i = 1; i < e->nsym; i++) {
		const Elf64_Sym *s = &e->sym[i];
		int bind = ELF64_ST_BIND(s->st_info);
		/* an indirect function's resolver runs while the program is
		 * relocated, before main and every initialiser (red team);
		 * static or not, nothing of a kernel file may run then */
		if (ELF64_ST_TYPE(s->st_info) == STT_GNU_IFUNC &&
		    s->st_shndx != SHN_UNDEF) {
			problem(out,
				"defines the indirect function (ifunc) %s: its "
				"resolver runs while the program loads, before "
				"the harness starts", sym_name(e, s));
			continue;
		}
		if (s->st_shndx == SHN_UNDEF ||
		    (bind != STB_GLOBAL && bind != STB_WEAK &&
		     bind != STB_GNU_UNIQUE))
			continue;
		const char *n = sym_name(e, s);
		/* the launchers, and the compiler's pointer to the C++
		 * personality routine (weak, hidden, the same in every object) */
		if (in_list(r->launchers, n) ||
		    !strcmp(n, "DW.ref.__gxx_personality_v0"))
			continue;
		int mangled = !strncmp(n, "_Z", 2);
		/* a static local of an inline function and its guard
		 * (_ZZ..., _ZGVZ...: weak, data only) are the file's own */
		int local_static = !strncmp(n, "_ZGVZ", 5) ||
				   !strncmp(n, "_ZZ", 3);
		int reserved = in_list(r->harness_symbols, n) ||
			       (mangled && !local_static &&
				objcheck_library_name(n));
		if (!reserved && !mangled && in_list(r->kernels, n)) {
			problem(out,
				"has the kernel %s with C linkage (extern \"C\"): "
				"its host stub would own the name %s in the "
				"whole program; declare kernels without "
				"extern \"C\"", n, n);
			continue;
		}
		if (!reserved && (in_list(r->kernels, n) || is_stub(n) ||
				  mangled))
			continue; /* kernels, stubs, the student's own C++ */
		/* a header's template or inline function the compiler
		 * emitted (std::string's constructor from a const char *,
		 * std::to_string, operator+): weak, named nowhere in the
		 * judge's objects, and made hidden before the link
		 * (objcheck_hide_library_copies), so only the student's own
		 * code can reach it */
		if (bind == STB_WEAK && mangled &&
		    !in_list(r->harness_symbols, n) && objcheck_library_name(n))
			continue;
		if (ELF64_ST_TYPE(s->st_info) == STT_OBJECT && !mangled)
			problem(out,
				"defines the global variable %s: a kernel file "
				"may define only its kernels and the launcher "
				"(%s); a variable of that name would replace "
				"the harness's or a library's own (declare it "
				"static, or static const)",
				n, r->launchers && r->launchers[0]
					   ? r->launchers[0]
					   : "the launcher");
		else
			problem(out,
				"defines the global symbol %s: a kernel file "
				"may define only its kernels and the launcher "
				"(%s); it would replace the harness's or a "
				"library's own %s (make helpers static)",
				n, r->launchers && r->launchers[0]
					   ? r->launchers[0]
					   : "the launcher",
				mangled ? "C++ symbol" : "function");
	}
}

static void check_undefined(const struct elf *e, struct objcheck_list *out)
{
	for (size_t i = 1; i < e->nsym; i++) {
		const Elf64_Sym *s = &e->sym[i];
		if (s->st_shndx != SHN_UNDEF || !s->st_name)
			continue;
		const char *n = sym_name(e, s);
		if (in_list(allowed_calls, n) ||
		    in_list(registration_calls, n) || std_exception_ref(n) ||
		    std_string_ref(n))
			continue;
		problem(out,
			"calls or uses %s, which is not on the list of functions "
			"a kernel file may call (launches through <<<>>>, "
			"cudaLaunchKernel(Ex) or cooperative launches; device "
			"queries; printf): %s",
			n,
			!strncmp(n, "cu", 2) && strncmp(n, "cuda", 4)
				? "the driver API is not for kernel files"
			: !strncmp(n, "cudaGraph", 9) ||
					!strncmp(n, "cudaStream", 10)
				? "the harness times the default stream only, "
				  "and the launch recorder must see every kernel"
			: !strncmp(n, "__cxa_atexit", 12)
				? "a global object with a destructor is a static "
				  "initialiser"
			: !strncmp(n, "_ZTI", 4) || !strncmp(n, "__cxa", 5)
				? "to stop on an error, throw std::runtime_error "
				  "(<stdexcept>) or call exit(EXIT_FAILURE); "
				  "other thrown types are not on the list"
				: "process, file, memory and library functions "
				  "belong to the harness");
	}
}

/* Relocations: registration calls only from nvcc's registration functions;
 * the .init_array entry must be nvcc's. */
/* Whether the defined function f may be named from inside nvcc's
 * registration: another registration function, a kernel's host wrapper
 * or its stub. */
static int registration_target(const struct elf *e, const Elf64_Sym *f,
			       const struct objcheck_rules *r)
{
	const char *n = sym_name(e, f);
	char plain[512], one[512];
	snprintf(plain, sizeof(plain), "%.*s", (int)strcspn(n, "."), n);
	if (registration_function(n) || is_stub(plain) ||
	    in_list(r->kernels, plain))
		return 1;
	/* a host function with internal linkage has GCC's L before its name
	 * (_ZL8k_static..., ...saxpyL11axpy_kernel... for a kernel in an
	 * anonymous namespace) where the PTX entry has none: one L taken
	 * out, at any place (only one is GCC's: saxpy_L2_resident keeps
	 * its own) */
	size_t len = strlen(plain);
	for (size_t i = 2; i + 1 < len; i++) {
		if (plain[i] != 'L' || !isdigit((unsigned char)plain[i + 1]))
			continue;
		snprintf(one, sizeof(one), "%.*s%s", (int)i, plain,
			 plain + i + 1);
		if (in_list(r->kernels, one))
			return 1;
	}
	return 0;
}

/* A relocation inside one of nvcc's registration functions (fn): it may
 * name the registration calls, nvcc's other registration functions, the
 * kernels' host wrappers and stubs, and data. Anything else is code a
 * student's overload put there (red team, 2026-11-27: an operator& the
 * stub's &__fatDeviceText called, inlined into __sti____cudaRegisterAll,
 * ran before main in the process that becomes the judge). */
static void registration_reference(const struct elf *e,
				   const struct objcheck_rules *r,
				   const Elf64_Rela *rel, const char *fn,
				   struct objcheck_list *out)
{
	const Elf64_Sym *s = &e->sym[ELF64_R_SYM(rel->r_info)];
	const char *what = sym_name(e, s);
	int ok;
	if (s->st_shndx == SHN_UNDEF) {
		ok = in_list(registration_calls, what);
	} else if (s->st_shndx >= e->nsec) {
		ok = 1; /* absolute: no code */
	} else if (ELF64_ST_TYPE(s->st_info) == STT_FUNC) {
		ok = registration_target(e, s, r);
	} else if (ELF64_ST_TYPE(s->st_info) == STT_SECTION &&
		   (e->sh[s->st_shndx].sh_flags & SHF_EXECINSTR)) {
		/* section-relative code: the function at the addend, as a
		 * call or lea reads it (+4 past the 32-bit field) */
		const Elf64_Sym *f = function_at(e, s->st_shndx,
						 (Elf64_Addr)rel->r_addend + 4);
		ok = f && registration_target(e, f, r);
		what = f ? sym_name(e, f) : sec_name(e, s->st_shndx);
	} else {
		ok = 1; /* data: the handle, strings, host shadows */
	}
	if (!ok)
		problem(out,
			"puts a reference to %s into nvcc's registration "
			"(%s), which runs before main: only nvcc's own "
			"registration calls may (an overloaded operator& of "
			"the file's own, say, would run there)",
			what, fn);
}

static void check_relocations(const struct elf *e,
			      const struct objcheck_rules *r,
			      struct objcheck_list *out)
{
	int init_entries = 0;
	for (size_t i = 0; i < e->nsec; i++) {
		const Elf64_Shdr *rs = &e->sh[i];
		if (rs->sh_type != SHT_RELA)
			continue;
		if (rs->sh_info >= e->nsec ||
		    !in_file(e, rs->sh_offset, rs->sh_size) ||
		    rs->sh_offset % 8) {
			problem(out, "a relocation table that cannot be read");
			continue;
		}
		size_t target = rs->sh_info;
		const char *tname = sec_name(e, target);
		int init = e->sh[target].sh_type == SHT_INIT_ARRAY;
		const Elf64_Rela *rel =
			(const Elf64_Rela *)(e->data + rs->sh_offset);
		size_t nrel = rs->sh_size / sizeof(Elf64_Rela);
		for (size_t k = 0; k < nrel; k++) {
			size_t si = ELF64_R_SYM(rel[k].r_info);
			if (si >= e->nsym)
				continue;
			const Elf64_Sym *s = &e->sym[si];
			if (init) {
				init_entries++;
				/* section-relative (.text.startup + 0) or a
				 * symbol: find the function it points at */
				const Elf64_Sym *f =
					ELF64_ST_TYPE(s->st_info) == STT_SECTION
						? function_at(e, s->st_shndx,
							      (Elf64_Addr)rel[k]
								      .r_addend)
						: s;
				const char *fn = f ? sym_name(e, f) : "?";
				if (!f || !registration_named(
						  fn, "__sti____cudaRegisterAll",
						  "v"))
					problem(out,
						"has a static initialiser (%s in "
						"%s): code that runs before the "
						"harness starts (a global object "
						"with a constructor, or "
						"__attribute__((constructor))) is "
						"not allowed in a kernel file",
						fn, tname);
				continue;
			}
			const Elf64_Sym *f =
				function_at(e, target, rel[k].r_offset);
			const char *fn = f ? sym_name(e, f) : "";
			if (f && ELF64_ST_BIND(f->st_info) == STB_LOCAL &&
			    registration_function(fn)) {
				registration_reference(e, r, &rel[k], fn, out);
				continue;
			}
			if (s->st_shndx != SHN_UNDEF ||
			    !in_list(registration_calls, sym_name(e, s)))
				continue;
			if (!f || ELF64_ST_BIND(f->st_info) != STB_LOCAL ||
			    !registration_function(fn))
				problem(out,
					"calls %s from %s: only nvcc's own "
					"registration code may (atexit and "
					"module registration run code outside "
					"the harness's order)",
					sym_name(e, s), f ? fn : tname);
		}
	}
	if (init_entries > 1)
		problem(out, "has %d static initialisers: only nvcc's own "
			     "registration may run before the harness starts",
			init_entries);
}

static void check_sections(const struct elf *e, struct objcheck_list *out)
{
	/* machine code only where a compiler puts functions, and no data
	 * there (red team: a const array in section ".text" ran as code) */
	for (size_t i = 1; i < e->nsym; i++) {
		const Elf64_Sym *s = &e->sym[i];
		int type = ELF64_ST_TYPE(s->st_info);
		if (s->st_shndx == SHN_UNDEF || s->st_shndx >= e->nsec ||
		    !(e->sh[s->st_shndx].sh_flags & SHF_EXECINSTR) ||
		    type == STT_FUNC || type == STT_SECTION ||
		    type == STT_FILE)
			continue;
		if (type == STT_NOTYPE) {
			/* a compiler labels code only with functions; a bare
			 * label there is assembler text's (red team,
			 * 2026-11-27: cl_evil: in .text.saxpy, from a section
			 * attribute's string) */
			problem(out,
				"has the label %s in the executable section %s "
				"that is no function: code written as assembler "
				"text is not allowed in a kernel file",
				sym_name(e, s), sec_name(e, s->st_shndx));
			continue;
		}
		problem(out,
			"holds data (%s) in the executable section %s: data that "
			"runs as machine code is host assembly in disguise",
			sym_name(e, s), sec_name(e, s->st_shndx));
	}
	for (size_t i = 0; i < e->nsec; i++) {
		const char *n = sec_name(e, i);
		if ((e->sh[i].sh_flags & SHF_EXECINSTR) && strcmp(n, ".text") &&
		    strncmp(n, ".text.", 6)) {
			problem(out,
				"has machine code in the section %s: only a "
				"compiler's .text sections may hold code", n);
			continue;
		}
		const char *base = n;
		if (!strncmp(n, ".rela", 5) && e->sh[i].sh_type == SHT_RELA)
			base = n + 5;
		if (in_list(allowed_sections, base) ||
		    has_prefix(allowed_section_prefixes, base))
			continue;
		if (base != n)
			continue; /* the relocations of a section named below */
		uint32_t type = e->sh[i].sh_type;
		if (type == SHT_FINI_ARRAY || type == SHT_PREINIT_ARRAY ||
		    !strcmp(base, ".ctors") || !strcmp(base, ".dtors") ||
		    !strcmp(base, ".init") || !strcmp(base, ".fini")) {
			problem(out,
				"has a static initialiser or finaliser (section "
				"%s): code that runs outside the harness's order "
				"is not allowed in a kernel file", n);
			continue;
		}
		if (!strncmp(base, ".text.", 6)) {
			/* a COMDAT function's own section: .text.NAME holds
			 * the function NAME */
			int found = 0;
			for (size_t k = 1; k < e->nsym && !found; k++)
				found = e->sym[k].st_shndx == i &&
					ELF64_ST_TYPE(e->sym[k].st_info) ==
						STT_FUNC &&
					!strcmp(sym_name(e, &e->sym[k]),
						base + 6);
			if (found)
				continue;
		}
		problem(out,
			"has an unexpected section %s: host assembly or "
			"section attributes are not allowed in a kernel file",
			n);
	}
}

int objcheck_object(const char *path, const struct objcheck_rules *rules,
		    struct objcheck_list *out, char *err, size_t errlen)
{
	struct elf e;
	if (elf_open(&e, path, err, errlen) < 0)
		return -1;
	check_defined(&e, rules, out);
	check_undefined(&e, out);
	check_relocations(&e, rules, out);
	check_sections(&e, out);
	elf_close(&e);
	return 0;
}

/* Write the object's bytes (changed in place) back to path. */
static int elf_write(const struct elf *e, const char *path, char *err,
		     size_t errlen)
{
	int rc = 0;
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(e->data, 1, e->size, f) != e->size)
		rc = -1;
	if (f && fclose(f) != 0)
		rc = -1;
	if (rc < 0)
		snprintf(err, errlen, "cannot rewrite %s", path);
	return rc;
}

int objcheck_defer_registration(const char *path, char *err, size_t errlen)
{
	struct elf e;
	if (elf_open(&e, path, err, errlen) < 0)
		return -1;
	int moved = 0, rc = 0;
	for (size_t i = 0; i < e.nsec && rc == 0; i++) {
		Elf64_Shdr *sh = (Elf64_Shdr *)&e.sh[i];
		if (sh->sh_type != SHT_INIT_ARRAY)
			continue;
		const char *name = sec_name(&e, i);
		if (strcmp(name, ".init_array") || moved) {
			snprintf(err, errlen, "%s: an initialiser section %s the "
				 "object check did not expect", path, name);
			rc = -1;
			break;
		}
		/* same length, in place (the name may be the tail of
		 * .rela.init_array's: that one becomes .relahx_register, a
		 * relocation section all the same, known by its type) */
		memcpy((char *)name, REGISTRATION_SECTION,
		       strlen(REGISTRATION_SECTION));
		sh->sh_type = SHT_PROGBITS;
		moved = 1;
	}
	if (rc == 0 && moved)
		rc = elf_write(&e, path, err, errlen);
	elf_close(&e);
	return rc;
}

int objcheck_hide_library_copies(const char *path, char *err, size_t errlen)
{
	struct elf e;
	if (elf_open(&e, path, err, errlen) < 0)
		return -1;
	int hidden = 0;
	for (size_t i = 1; i < e.nsym; i++) {
		Elf64_Sym *s = (Elf64_Sym *)&e.sym[i];
		if (s->st_shndx == SHN_UNDEF || !s->st_name ||
		    ELF64_ST_BIND(s->st_info) == STB_LOCAL ||
		    !objcheck_library_name(sym_name(&e, s)))
			continue;
		s->st_other = (unsigned char)((s->st_other & ~0x3) |
					      STV_HIDDEN);
		hidden++;
	}
	int rc = hidden ? elf_write(&e, path, err, errlen) : 0;
	elf_close(&e);
	return rc;
}

int objcheck_symbols(const char *path, int weak_undefined_only, char ***names,
		     size_t *count, char *err, size_t errlen)
{
	struct elf e;
	if (elf_open(&e, path, err, errlen) < 0)
		return -1;
	for (size_t i = 1; i < e.nsym; i++) {
		const Elf64_Sym *s = &e.sym[i];
		int bind = ELF64_ST_BIND(s->st_info);
		if (!s->st_name || bind == STB_LOCAL)
			continue;
		if (weak_undefined_only &&
		    (bind != STB_WEAK || s->st_shndx != SHN_UNDEF))
			continue;
		char **grown = realloc(*names, (*count + 2) * sizeof(char *));
		if (!grown)
			break;
		*names = grown;
		(*names)[(*count)++] = strdup(sym_name(&e, s));
		(*names)[*count] = NULL;
	}
	elf_close(&e);
	return 0;
}

char **objcheck_ptx_entries(const char *ptx)
{
	char **names = calloc(1, sizeof(char *));
	size_t n = 0;
	for (const char *p = ptx ? strstr(ptx, ".entry") : NULL; names && p;
	     p = strstr(p + 6, ".entry")) {
		const char *q = p + 6;
		if (p > ptx && !isspace((unsigned char)p[-1]))
			continue;
		if (!isspace((unsigned char)*q))
			continue;
		while (isspace((unsigned char)*q))
			q++;
		size_t len = 0;
		while (q[len] && (isalnum((unsigned char)q[len]) ||
				  q[len] == '_' || q[len] == '$' || q[len] == '.'))
			len++;
		if (!len)
			continue;
		char **grown = realloc(names, (n + 2) * sizeof(char *));
		if (!grown)
			break;
		names = grown;
		names[n++] = strndup(q, len);
		names[n] = NULL;
	}
	return names;
}

void objcheck_free_names(char **names)
{
	for (char **p = names; p && *p; p++)
		free(*p);
	free(names);
}

/* ---- nvcc's host translation unit ---------------------------------------- */

/* Why #ident is refused (red team, 2026-11-23: GCC writes its string into
 * the assembly with the quotes unescaped, so "a\";.text;f:;.byte 0x0f,
 * 0x05;..." is a raw system call; nvcc passes the directive through). */
#define IDENT_WHY                                                            \
	"its string goes to the assembler as it is written (host code "      \
	"without an asm statement) and is not allowed in a kernel file"

/* Whether the directive text at q is the word w (then a space or the end). */
static int directive_is(const char *q, const char *w)
{
	size_t n = strlen(w);
	return !strncmp(q, w, n) && !isalnum((unsigned char)q[n]) && q[n] != '_';
}

/* Whether s..s+len is the word w. */
static int word_is(const char *s, size_t len, const char *w)
{
	return strlen(w) == len && !strncmp(s, w, len);
}

/* Attributes whose string GCC writes into its assembly output unchecked
 * (red team, 2026-11-23: section(".rodata;.text;f:;.byte 0x0f,0x05;...")
 * is a raw syscall without an asm token; so are symver and weakref), and
 * alias/ifunc, which name symbols. Returns the attribute's kind: 's' for a
 * section name, 'n' for a symbol name, 'v' for symver (never plain), 0 for
 * any other attribute. */
static int assembler_attribute(const char *s, size_t len)
{
	if (len > 4 && !strncmp(s, "__", 2) && !strncmp(s + len - 2, "__", 2))
		s += 2, len -= 4; /* __section__ */
	if (word_is(s, len, "section"))
		return 's';
	if (word_is(s, len, "weakref") || word_is(s, len, "alias") ||
	    word_is(s, len, "ifunc"))
		return 'n';
	return word_is(s, len, "symver") ? 'v' : 0;
}

/* A file named by a line marker: outside root, or in an allowed folder. */
static void check_included(const char *name, size_t len,
			   const struct objcheck_source *src, char (*seen)[256],
			   int *nseen, struct objcheck_list *out)
{
	char given[PATH_MAX], real[PATH_MAX];
	if (!len || name[0] == '<' || !src->root)
		return;
	if (name[0] == '/')
		snprintf(given, sizeof(given), "%.*s", (int)len, name);
	else
		snprintf(given, sizeof(given), "%s/%.*s",
			 src->cwd ? src->cwd : ".", (int)len, name);
	if (!realpath(given, real))
		return;
	size_t rl = strlen(src->root);
	if (strncmp(real, src->root, rl) || real[rl] != '/')
		return; /* system and CUDA headers, the student's own folder */
	/* in an allowed folder, headers only (and the student's file
	 * itself): the lab's folder also holds
	 * its harness.cu, lab.json and the other steps' files, which the
	 * sandbox hides but --unsandboxed does not (red team, 2026-11-27:
	 * the lint was then the only rule) */
	const char *ext = strrchr(real, '.'), *base = strrchr(real, '/');
	int header = (ext && (!strcmp(ext, ".h") || !strcmp(ext, ".cuh") ||
			      !strcmp(ext, ".hpp"))) ||
		     (src->source_base && base &&
		      !strcmp(base + 1, src->source_base)); /* the file */
	for (const char *const *ok = src->include_ok; header && ok && *ok;
	     ok++) {
		size_t ol = strlen(*ok);
		if (!strncmp(real, *ok, ol) && real[ol] == '/' &&
		    !strchr(real + ol + 1, '/'))
			return;
	}
	for (int i = 0; i < *nseen; i++)
		if (!strcmp(seen[i], real + rl + 1))
			return;
	if (*nseen < 16)
		snprintf(seen[(*nseen)++], 256, "%s", real + rl + 1);
	problem(out,
		"includes %s: a kernel file may include only its lab's "
		"headers, cudalab.h and system or CUDA headers",
		real + rl + 1);
}

/* The tokens of cudafe++'s output, as the walk hands them on. */
enum host_tok { TOK_IDENT, TOK_STRING, TOK_PUNCT, TOK_NUMBER };

/* An asm keyword being read, token by token, up to its decision: a label
 * (asm("name") after a declarator) or a statement (anything else). */
struct host_asm {
	int state;     /* 0 none; 1 after the keyword; 2 in its parenthesis,
			  reading the template; 3 after the template */
	int qualified; /* volatile, goto or inline: a statement */
	int declarator;/* the token before the keyword ends a declarator */
	int reg;       /* in a declaration with `register`: a register name */
	int literal;   /* the template is string literals only (no escape) */
	int strings;   /* string literals read */
	size_t len;
	char text[72]; /* the template, cut */
	long line;     /* where the keyword was */
	char file[160];
	int depth;     /* state 4: the operands' parentheses still open */
};

/* An assembler-text attribute being read: its name, then ( "string" ). */
struct host_attr {
	int kind;    /* assembler_attribute()'s; 0 when none is being read */
	int state;   /* 1 after the name; 2 in its parentheses */
	int depth;   /* parentheses open (GCC takes section((".x")) too) */
	int in_attr; /* the walk is inside __attribute__ or [[ ]] */
	int student; /* on the student's own line: refused when called */
	char name[16];
	int plain;   /* every string so far a plain name of its kind */
	int other;   /* a token that is neither a string nor a parenthesis */
	int strings;
	long line;
	char file[160];
};

/* The state of objcheck_host_source's walk over the host translation unit. */
struct host_scan {
	const struct objcheck_source *src;
	struct objcheck_list *out;
	char seen[16][256];
	int nseen;
	int student;   /* current line comes from the student's file */
	char file[160];/* the file the current line comes from, as named */
	int skipping;  /* depth of #if 0 blocks */
	long line;
	int reported;
	/* inside __attribute__((...)) (its parenthesis depth) or [[...]] */
	int attr_open, attr_depth, cxx_attr;
	int brackets;  /* [ open */
	int cxx_base;  /* brackets open before the attribute's [[ */
	/* the previous token: 'i' a name, 'k' else, do or __extension__,
	 * ']' a ], 'J' the ] closing [[...]], 'A' the ) closing
	 * __attribute__((...)),
	 * ')' closing a declarator's or a call's parenthesis, 'c' closing
	 * the condition of if, while, for, switch or catch, another
	 * punctuator, 0 at the start */
	int prev;
	int in_register;    /* `register` since the last ; { or } */
	struct host_operator {
		int state;  /* 1 after `operator`, 2 after `&`, 3 in its ( ),
			       4 after them, 5 in its body */
		int depth, commas, angle;
		long line;
		int ntok;   /* the body's tokens (tok holds the first 48) */
		char tok[48][24];
	} op;
	int control;        /* the last name was if, while, for, switch,
			       catch (or constexpr after if) */
	int depth;          /* open parentheses, nested */
	unsigned char cond[256]; /* per depth: opened after `control` */
	struct host_asm as;
	struct host_attr at;
};

/* A problem of the walk, at most 8 of them. */
static void host_problem(struct host_scan *hs, const char *fmt, ...)
{
	if (hs->reported >= 8)
		return;
	hs->reported++;
	if (hs->out->count < hs->out->max) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(hs->out->items[hs->out->count].message,
			  sizeof(hs->out->items[0].message), fmt, ap);
		va_end(ap);
	}
	hs->out->count++;
}

/* At a backslash: the length of a line splice there (\, spaces or tabs,
 * a newline: GCC takes them all), or 0. */
static size_t splice_length(const char *p)
{
	size_t n = 1;
	while (p[n] == ' ' || p[n] == '\t')
		n++;
	return p[n] == '\n' ? n + 1 : 0;
}

/* A line marker's file name f..fe: the current file from now on. */
static void host_marker_file(struct host_scan *hs, const char *f,
			     const char *fe)
{
	const char *source_base = hs->src->source_base;
	check_included(f, (size_t)(fe - f), hs->src, hs->seen, &hs->nseen,
		       hs->out);
	const char *slash = f;
	for (const char *c = f; c < fe; c++)
		if (*c == '/')
			slash = c + 1;
	hs->student = (size_t)(fe - slash) == strlen(source_base) &&
		      !strncmp(slash, source_base, (size_t)(fe - slash));
	snprintf(hs->file, sizeof(hs->file), "%.*s", (int)(fe - slash), slash);
}

/* Whether the directive text at q is exactly `if 0` (cudafe++'s own
 * around device code): #if 0x1, #if 0||1 are compiled (red team,
 * 2026-11-27). */
static int if_zero(const char *q)
{
	if (strncmp(q, "if", 2) || (q[2] != ' ' && q[2] != '\t'))
		return 0;
	q += 2 + strspn(q + 2, " \t");
	if (*q != '0')
		return 0;
	q += 1 + strspn(q + 1, " \t");
	return *q == '\n' || *q == 0;
}

/* A directive line at p ('#'): a line marker (# N "file"), #ident, or
 * the conditionals cudafe++ writes around device code (#if 0 ... #endif).
 * Returns the end of the line. */
static const char *host_directive(struct host_scan *hs, const char *p)
{
	const char *q = p + 1;
	while (*q == ' ' || *q == '\t')
		q++;
	if (isdigit((unsigned char)*q)) {
		long n = strtol(q, (char **)&q, 10);
		while (*q == ' ')
			q++;
		if (*q == '"') {
			const char *f = q + 1;
			const char *fe = strchr(f, '"');
			const char *nl = strchr(f, '\n');
			if (fe && (!nl || fe < nl))
				host_marker_file(hs, f, fe);
		}
		hs->line = n - 1;
	} else if (!hs->skipping &&
		   (directive_is(q, "ident") || directive_is(q, "sccs") ||
		    (directive_is(q, "pragma") &&
		     (directive_is(q + 6 + strspn(q + 6, " \t"), "ident") ||
		      directive_is(q + 6 + strspn(q + 6, " \t"), "sccs"))))) {
		host_problem(hs, "%s:%ld: #ident: %s", hs->file, hs->line,
			     IDENT_WHY);
	} else if (directive_is(q, "if") || directive_is(q, "ifdef") ||
		   directive_is(q, "ifndef")) {
		if (hs->skipping || if_zero(q))
			hs->skipping++;
	} else if (directive_is(q, "else") || directive_is(q, "elif")) {
		/* the other branch of an #if 0 is compiled: read it */
		if (hs->skipping == 1)
			hs->skipping = 0;
	} else if (directive_is(q, "endif")) {
		if (hs->skipping)
			hs->skipping--;
	}
	while (*p && *p != '\n')
		p++;
	return p;
}

/* Host asm that does nothing a kernel file could misuse, whoever wrote it:
 * an empty template (a compiler barrier, whatever its operands) and the
 * spin-wait hints libcu++'s headers use in host code (<cuda/barrier>,
 * <cuda/atomic>: __cccl_thread_yield_processor's "pause", "yield" on Arm).
 * A template with no % names no operand, so its operands add no text. */
static int harmless_template(const struct host_asm *a)
{
	if (!a->literal || !a->strings)
		return 0;
	return a->len == 0 || !strcmp(a->text, "pause") ||
	       !strcmp(a->text, "yield");
}

/* Whether the template is a plain symbol name: what an asm label may be. */
static int plain_symbol(const char *s, size_t len)
{
	if (!len || isdigit((unsigned char)s[0]))
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return 0;
	return 1;
}

/* The asm keyword's decision, once its template has been read: `closed`
 * when ) came right after it (no operands). */
static void host_asm_decide(struct host_scan *hs, int closed)
{
	struct host_asm *a = &hs->as;
	int label = closed && !a->qualified && a->declarator && a->literal &&
		    a->strings;
	int mine = hs->student;
	a->state = 0;
	if (mine) {
		/* the student's own lines: no asm of any kind (the friendly
		 * rule; the ones below hold whoever wrote the line) */
		host_problem(hs,
			     "%s:%ld: host assembly (asm, an asm label or a "
			     "file-scope asm block such as .incbin) is not "
			     "allowed in a kernel file; inline PTX inside "
			     "__device__ or __global__ code is fine",
			     a->file, a->line);
	} else if (label && a->reg) {
		host_problem(hs,
			     "%s:%ld: a register variable (asm(\"%.20s\") "
			     "with register): host code that reads or writes a "
			     "machine register by name, such as the stack "
			     "pointer, is not allowed in a kernel file",
			     a->file, a->line, a->text);
	} else if (label && !plain_symbol(a->text, a->len)) {
		host_problem(hs,
			     "%s:%ld: an asm label that is not a plain symbol "
			     "name (\"%.40s\"): its text goes to the assembler "
			     "as it is written",
			     a->file, a->line, a->text);
	} else if (!label && !harmless_template(a)) {
		host_problem(hs,
			     "%s:%ld: host assembly (\"%.40s\") in host code "
			     "that a kernel file compiles: no asm statement "
			     "runs on the host but an empty one or a spin-wait "
			     "hint, whichever file it comes from",
			     a->file, a->line, a->literal ? a->text : "...");
	}
}

/* The asm keyword's next token; returns 1 when the asm took it, 0 when it
 * is no part of the asm (then read as any other token). */
static int host_asm_token(struct host_scan *hs, enum host_tok kind,
			  const char *s, size_t len)
{
	struct host_asm *a = &hs->as;
	if (a->state == 4) { /* the operands, up to the asm's own ) */
		if (kind == TOK_PUNCT && (*s == '(' || *s == ')'))
			a->depth += *s == '(' ? 1 : -1;
		if (a->depth == 0)
			a->state = 0;
		return 1;
	}
	if (a->state == 1) {
		if (kind == TOK_IDENT &&
		    (word_is(s, len, "volatile") || word_is(s, len, "__volatile") ||
		     word_is(s, len, "__volatile__") || word_is(s, len, "goto") ||
		     word_is(s, len, "inline") || word_is(s, len, "__inline") ||
		     word_is(s, len, "__inline__"))) {
			a->qualified = 1;
			return 1;
		}
		if (kind == TOK_PUNCT && *s == '(') {
			a->state = 2;
			return 1;
		}
		a->literal = 0; /* not asm's grammar: judged as a statement */
		host_asm_decide(hs, 0);
		return 0;
	}
	if (a->state == 2 && kind == TOK_STRING) {
		/* s..len is the literal with its quotes and any prefix */
		if (*s != '"' || len < 2)
			a->literal = 0;
		for (size_t i = 1; i + 1 < len && a->literal; i++) {
			if (s[i] == '\\') {
				a->literal = 0;
			} else if (a->len + 1 < sizeof(a->text)) {
				a->text[a->len++] = s[i];
				a->text[a->len] = 0;
			} else {
				a->literal = 0; /* longer than any name kept */
			}
		}
		a->strings++;
		return 1;
	}
	int closed = kind == TOK_PUNCT && *s == ')';
	if (!closed && !(kind == TOK_PUNCT && *s == ':'))
		a->literal = 0; /* a template that is no string literal */
	host_asm_decide(hs, closed);
	if (!closed) { /* read on to the asm's own ) */
		a->state = 4;
		a->depth = 1 + (kind == TOK_PUNCT && *s == '(');
	}
	return 1;
}

/* The stricter rule on the student's own lines (file, line, name). */
#define STUDENT_ATTRIBUTE                                                    \
	"%s:%ld: the attribute %.*s: its text goes to the assembler as it "  \
	"is written (host code without an asm statement) and is not "        \
	"allowed in a kernel file"

/* The attribute's next token, from its name to its closing parenthesis:
 * section(".name"), alias("name") ... pass only with plain names (the
 * object check then judges the sections and symbols). Read wherever the
 * name is followed by ( (red team, 2026-11-27: a ]] inside an attribute's
 * argument, a[a[0]], ended the walk's attribute while GCC read on, and
 * section's string went to the assembler unread); outside an attribute a
 * call with other arguments than strings is no attribute. */
static int host_attr_token(struct host_scan *hs, enum host_tok kind,
			   const char *s, size_t len)
{
	struct host_attr *t = &hs->at;
	if (t->state == 1) {
		t->state = kind == TOK_PUNCT && *s == '(' ? 2 : 0;
		t->depth = 1;
		if (t->state && t->student)
			host_problem(hs, STUDENT_ATTRIBUTE, t->file, t->line,
				     (int)strlen(t->name), t->name);
		if (!t->state || t->student)
			t->kind = 0; /* weakref with no target: nothing said */
		return t->state != 0 && !t->student;
	}
	if (kind == TOK_STRING) {
		const char *b = s + 1;
		size_t n = len >= 2 ? len - 2 : 0;
		int ok = *s == '"' && t->kind != 'v' &&
			 (t->kind == 's' ? n > 0 : plain_symbol(b, n));
		for (size_t i = 0; ok && i < n; i++)
			ok = isalnum((unsigned char)b[i]) || b[i] == '_' ||
			     (t->kind == 's' && b[i] == '.');
		t->plain = t->plain && ok;
		t->strings++;
		return 1;
	}
	if (kind == TOK_PUNCT && (*s == '(' || *s == ')')) {
		t->depth += *s == '(' ? 1 : -1;
		if (t->depth > 0)
			return 1;
	} else {
		t->other = 1;
		return 1;
	}
	if ((t->other && t->in_attr) ||
	    (!t->other && (!t->plain || t->strings > 1)))
		host_problem(hs,
			     "%s:%ld: an attribute whose text goes to the "
			     "assembler (section, symver, weakref, alias, "
			     "ifunc) with more than a plain name in it",
			     t->file, t->line);
	t->kind = 0;
	return 1;
}

/* Whether the previous token can end a declarator, so that asm("name")
 * after it is a label: a name, ) or one ]. An asm statement follows {, },
 * ;, :, else, do or the ) of a condition (cudafe++ also writes every
 * statement under if, else, for, while and do in braces: the walk does
 * not count on it). */
static int ends_declarator(const struct host_scan *hs)
{
	return hs->prev == 'i' || hs->prev == ')' || hs->prev == ']';
}

/* GCC builtins that set the stack pointer or jump to an address with no
 * asm statement (red team, 2026-11-27: __builtin_longjmp on a buffer of
 * the student's made mov ...,%rsp; jmp *%rax) or make code at run time:
 * no kernel file needs one in host code. */
static const char *const stack_builtins[] = {
	"__builtin_longjmp", "__builtin_setjmp", "__builtin_eh_return",
	"__builtin_unwind_init", "__builtin_frob_return_addr",
	"__builtin_init_trampoline", "__builtin_adjust_trampoline",
	"__builtin_init_heap_trampoline", "__builtin_init_descriptor",
	"__builtin_adjust_descriptor", "__builtin_eh_return_data_regno",
	NULL,
};

/* A name s..p (p past it): asm starts an asm, __attribute__ opens an
 * attribute, an assembler-text attribute's name starts its check. */
static void host_identifier(struct host_scan *hs, const char *s,
			    const char *p)
{
	size_t len = (size_t)(p - s);
	for (const char *const *b = stack_builtins; *b; b++)
		if (word_is(s, len, *b))
			host_problem(hs,
				     "%s:%ld: %s in host code: it moves the "
				     "stack pointer or jumps to an address "
				     "with no asm statement, and is not "
				     "allowed in a kernel file",
				     hs->file, hs->line, *b);
	int is_asm = word_is(s, len, "asm") || word_is(s, len, "__asm") ||
		     word_is(s, len, "__asm__");
	if (word_is(s, len, "__attribute__") || word_is(s, len, "__attribute"))
		hs->attr_open = 1;
	int kind = assembler_attribute(s, len);
	int in_attr = hs->attr_depth || hs->cxx_attr;
	if (kind && hs->student && in_attr) {
		host_problem(hs, STUDENT_ATTRIBUTE, hs->file, hs->line,
			     (int)len, s);
	} else if (kind) {
		hs->at = (struct host_attr){.kind = kind, .state = 1,
					    .plain = 1, .in_attr = in_attr,
					    .student = hs->student,
					    .line = hs->line};
		snprintf(hs->at.file, sizeof(hs->at.file), "%s", hs->file);
		snprintf(hs->at.name, sizeof(hs->at.name), "%.*s",
			 (int)(len < 15 ? len : 15), s);
	}
	if (is_asm) {
		hs->as = (struct host_asm){.state = 1, .literal = 1,
					   .declarator = ends_declarator(hs),
					   .reg = hs->in_register,
					   .line = hs->line};
		snprintf(hs->as.file, sizeof(hs->as.file), "%s", hs->file);
	}
}

/* What the token just read leaves as the previous one (ends_declarator). */
static void host_prev(struct host_scan *hs, enum host_tok kind,
		      const char *s, size_t len)
{
	int control = hs->control;
	hs->control = 0;
	if (kind == TOK_IDENT && word_is(s, len, "register"))
		hs->in_register = 1;
	else if (kind == TOK_PUNCT && (*s == ';' || *s == '{' || *s == '}'))
		hs->in_register = 0;
	if (kind == TOK_IDENT) {
		hs->control = word_is(s, len, "if") || word_is(s, len, "while") ||
			      word_is(s, len, "for") ||
			      word_is(s, len, "switch") ||
			      word_is(s, len, "catch") ||
			      (control && word_is(s, len, "constexpr"));
		hs->prev = word_is(s, len, "else") || word_is(s, len, "do") ||
				   word_is(s, len, "__extension__") ?
				   'k' : 'i';
	} else if (kind == TOK_PUNCT && *s == '[') {
		/* [[ opens an attribute up to the ] ] that closes it: a ]]
		 * inside (a[a[0]]) does not (red team, 2026-11-27) */
		if (hs->prev == '[' && !hs->cxx_attr) {
			hs->cxx_attr = 1;
			hs->cxx_base = hs->brackets - 1;
		}
		hs->brackets++;
		hs->prev = '[';
	} else if (kind == TOK_PUNCT && *s == ']') {
		if (hs->brackets > 0)
			hs->brackets--;
		hs->prev = ']';
		if (hs->cxx_attr && hs->brackets <= hs->cxx_base) {
			hs->cxx_attr = 0;
			hs->prev = 'J'; /* an attribute's end: no declarator */
		}
	} else if (kind == TOK_PUNCT && *s == '(') {
		if (hs->depth < (int)sizeof(hs->cond))
			hs->cond[hs->depth] = (unsigned char)control;
		hs->depth++;
		hs->prev = '(';
	} else if (kind == TOK_PUNCT && *s == ')') {
		/* too deep to remember: taken for a condition (a statement) */
		int cond = hs->depth > (int)sizeof(hs->cond) ||
			   (hs->depth > 0 && hs->cond[hs->depth - 1]);
		if (hs->depth > 0)
			hs->depth--;
		hs->prev = cond ? 'c' : ')';
	} else {
		hs->prev = kind == TOK_PUNCT ? *s : 's';
	}
}

/* Whether the body's tokens are cudafe++'s host body of a __device__
 * function, exactly: int volatile ___ = 1 ; then (void) PARAM ; for each
 * parameter, then :: exit ( ___ ) ;. Such a function only ends the
 * process (and the host cannot call the __device__ original). */
static int device_only_body(const struct host_operator *o)
{
	static const char *const head[] = {"int", "volatile", "___", "=", "1",
					   ";"};
	static const char *const tail[] = {":", ":", "exit", "(", "___", ")",
					   ";"};
	int n = o->ntok, i = 0;
	if (n > (int)(sizeof(o->tok) / sizeof(o->tok[0])))
		return 0;
	for (size_t k = 0; k < 6; k++, i++)
		if (i >= n || strcmp(o->tok[i], head[k]))
			return 0;
	while (i + 5 <= n && !strcmp(o->tok[i], "(") &&
	       !strcmp(o->tok[i + 1], "void") && !strcmp(o->tok[i + 2], ")") &&
	       (isalpha((unsigned char)o->tok[i + 3][0]) ||
		o->tok[i + 3][0] == '_') &&
	       !strcmp(o->tok[i + 4], ";"))
		i += 5;
	for (size_t k = 0; k < 7; k++, i++)
		if (i >= n || strcmp(o->tok[i], tail[k]))
			return 0;
	return i == n;
}

/* operator & ( on the student's own lines, when it can be unary: refused.
 * nvcc's registration code, compiled after the student's in the same
 * translation unit, takes addresses with & (&__fatDeviceText, &the host
 * shadow of each __device__ variable): a student's unary operator& then
 * ran in it (red team, 2026-11-27; the registration now runs in the
 * student's process only, objcheck_defer_registration, so this rule is
 * the second line). Operator functions take no default arguments, so a
 * parameter list with a comma at its top level is binary: allowed (flags
 * enums, honest-code tester). A < at that level could hide the comma in a
 * template argument: refused, as are one parameter (a member's binary
 * form or a non-member unary one: the walk cannot tell) and none. */
static void host_operator_amp(struct host_scan *hs, enum host_tok kind,
			      const char *s, size_t len)
{
	struct host_operator *o = &hs->op;
	if (o->state == 3) {
		if (kind != TOK_PUNCT)
			return;
		if (*s == '(') {
			o->depth++;
		} else if (*s == ')' && o->depth > 0) {
			o->depth--;
		} else if (*s == ')') {
			/* to its body: a __device__ function's host body is
			 * cudafe++'s {int volatile ___ = 1; ... ::exit(___);},
			 * which the host cannot call */
			o->state = !o->commas || o->angle ? 4 : 0;
		} else if (o->depth == 0 && *s == ',') {
			o->commas++;
		} else if (o->depth == 0 && (*s == '<' || *s == '>')) {
			o->angle = 1;
		}
		return;
	}
	if (o->state == 4) { /* after the parameters, to the body */
		if (kind == TOK_PUNCT && *s == ';') {
			o->state = 0; /* a declaration: the definition is read */
		} else if (kind == TOK_PUNCT && *s == '{') {
			o->state = 5;
			o->ntok = 0;
			o->depth = 1;
		}
		return; /* const, noexcept(...), a trailing return */
	}
	if (o->state == 5) { /* the body's tokens, to its } */
		if (kind == TOK_PUNCT && (*s == '{' || *s == '}'))
			o->depth += *s == '{' ? 1 : -1;
		if (o->depth > 0) {
			if (o->ntok < (int)(sizeof(o->tok) / sizeof(o->tok[0])))
				snprintf(o->tok[o->ntok], sizeof(o->tok[0]),
					 "%.*s", (int)len, s);
			o->ntok++;
			return;
		}
		if (!device_only_body(o))
			host_problem(hs,
				     "%s:%ld: a unary operator& (or one the "
				     "check cannot tell from it) in host code: "
				     "nvcc's registration takes addresses with "
				     "& in the same file, so it would run there; "
				     "use a named function (a non-member "
				     "operator& of two parameters, or a "
				     "__device__ one, is fine)",
				     hs->file, o->line);
		o->state = 0;
		return;
	}
	if (kind == TOK_IDENT && word_is(s, len, "operator") && hs->student) {
		*o = (struct host_operator){.state = 1, .line = hs->line};
		return;
	}
	if (o->state == 1 && kind == TOK_PUNCT && *s == '&') {
		o->state = 2;
		return;
	}
	o->state = o->state == 2 && kind == TOK_PUNCT && *s == '(' ? 3 : 0;
}

/* One token of host code (not under #if 0), in order. */
static void host_token(struct host_scan *hs, enum host_tok kind,
		       const char *s, size_t len)
{
	int taken = (hs->as.state && host_asm_token(hs, kind, s, len)) ||
		    (hs->at.kind && host_attr_token(hs, kind, s, len));
	int attr_closed = 0;
	if (taken) {
		/* the asm or attribute took it */
	} else if (kind == TOK_IDENT) {
		host_identifier(hs, s, s + len);
	} else if (kind == TOK_PUNCT && *s == '(' &&
		   (hs->attr_open || hs->attr_depth)) {
		hs->attr_open = 0;
		hs->attr_depth++;
	} else if (kind == TOK_PUNCT && *s == ')' && hs->attr_depth) {
		attr_closed = --hs->attr_depth == 0;
	}
	host_operator_amp(hs, kind, s, len);
	host_prev(hs, kind, s, len);
	if (attr_closed)
		hs->prev = 'A'; /* the end of __attribute__((...)) */
}

/* The literal at p (after any prefix at s): its end. cudafe++ writes every
 * string as an ordinary one (raw strings and digit separators are gone
 * from its output, measured with CUDA 13.0), so a raw string here is
 * refused rather than read. */
static const char *host_literal(struct host_scan *hs, const char *s,
				const char *p)
{
	if (p > s && p[-1] == 'R') {
		host_problem(hs, "%s:%ld: a raw string literal in nvcc's host "
			     "translation unit (cudafe++ writes none): the "
			     "file cannot be checked", hs->file, hs->line);
		return p + strlen(p);
	}
	char q = *p++;
	while (*p && *p != q && *p != '\n') {
		if (*p == '\\' && p[1])
			p++;
		p++;
	}
	p = *p == q ? p + 1 : p;
	if (!hs->skipping)
		host_token(hs, TOK_STRING, s, (size_t)(p - s));
	return p;
}

/* A comment at p (// or slash-star): its end, counting its lines. */
static const char *host_comment(struct host_scan *hs, const char *p)
{
	if (p[1] == '/')
		return p + strcspn(p, "\n");
	const char *end = strstr(p + 2, "*/");
	for (const char *c = p; c < (end ? end : p + strlen(p)); c++)
		hs->line += *c == '\n';
	return end ? end + 2 : p + strlen(p);
}

static void host_walk(const char *text, const struct objcheck_source *src,
		      struct objcheck_list *out);

/* text with its line splices removed, as GCC removes them before it
 * reads a token (a \ then a newline inside a name, as\<newline>m, is one
 * name to GCC: red team, 2026-11-27; cudafe++ writes a pragma ending in \
 * as it is). The newlines removed come back after the joined line, so the
 * lines after it keep their numbers. NULL when out of memory. */
static char *unspliced(const char *text)
{
	size_t n = strlen(text);
	char *out = malloc(n + 1), *o = out;
	size_t owed = 0;
	if (!out)
		return NULL;
	for (const char *p = text; *p;) {
		size_t splice = *p == '\\' ? splice_length(p) : 0;
		if (splice) {
			p += splice;
			owed++;
			continue;
		}
		*o++ = *p;
		if (*p++ == '\n')
			for (; owed; owed--)
				*o++ = '\n';
	}
	*o = 0;
	return out;
}

void objcheck_host_source(const char *text, const struct objcheck_source *src,
			  struct objcheck_list *out)
{
	char *joined = unspliced(text);
	if (!joined) {
		problem(out, "out of memory reading nvcc's host translation "
			     "unit: the file cannot be checked");
		return;
	}
	host_walk(joined, src, out);
	free(joined);
}

/* The walk over the host translation unit, splices removed. */
static void host_walk(const char *text, const struct objcheck_source *src,
		      struct objcheck_list *out)
{
	struct host_scan hs = {.src = src, .out = out};
	snprintf(hs.file, sizeof(hs.file), "%s", src->source_base);
	int line_start = 1;
	for (const char *p = text; p && *p;) {
		const char *s = p;
		if (*p == '\n') {
			hs.line++;
			line_start = 1;
			p++;
		} else if (isspace((unsigned char)*p)) {
			p++;
		} else if (*p == '#' && line_start) {
			p = host_directive(&hs, p);
		} else if (p[0] == '/' && (p[1] == '/' || p[1] == '*')) {
			p = host_comment(&hs, p);
		} else if (*p == '"' || *p == '\'') {
			line_start = 0;
			p = host_literal(&hs, p, p);
		} else if (isalpha((unsigned char)*p) || *p == '_' || *p == '$') {
			line_start = 0;
			while (isalnum((unsigned char)*p) || *p == '_' || *p == '$')
				p++;
			if (*p == '"' || *p == '\'')
				p = host_literal(&hs, s, p); /* u8"..", L'x' */
			else if (!hs.skipping)
				host_token(&hs, TOK_IDENT, s, (size_t)(p - s));
		} else if (isdigit((unsigned char)*p) ||
			   (*p == '.' && isdigit((unsigned char)p[1]))) {
			line_start = 0;
			while (isalnum((unsigned char)*p) || *p == '.' ||
			       *p == '_' ||
			       (*p == '\'' && isalnum((unsigned char)p[1])) ||
			       ((*p == '+' || *p == '-') &&
				strchr("eEpP", p[-1])))
				p++;
			if (!hs.skipping)
				host_token(&hs, TOK_NUMBER, s, (size_t)(p - s));
		} else {
			line_start = 0;
			p++;
			if (!hs.skipping)
				host_token(&hs, TOK_PUNCT, s, 1);
		}
	}
	if (hs.as.state) /* the text ended inside an asm */
		host_asm_decide(&hs, 0);
}

/* ---- the student's own text: line directives ---------------------------- */


/* One step of the student's text after line splices (a backslash, spaces
 * or tabs, then a newline: GCC takes both), counting physical lines. */
struct spliced {
	const char *p;
	long line;
};

static void splice_skip(struct spliced *s)
{
	for (;;) {
		const char *q = s->p;
		if (*q != '\\')
			return;
		q++;
		while (*q == ' ' || *q == '\t' || *q == '\r' || *q == '\f' ||
		       *q == '\v')
			q++;
		if (*q != '\n')
			return;
		s->p = q + 1;
		s->line++;
	}
}

static char sp_peek(struct spliced *s, int ahead)
{
	struct spliced t = *s;
	for (int i = 0; i < ahead && *t.p; i++) {
		splice_skip(&t);
		if (*t.p == '\n')
			t.line++;
		if (*t.p)
			t.p++;
	}
	splice_skip(&t);
	return *t.p;
}

static char sp_next(struct spliced *s)
{
	splice_skip(s);
	char c = *s->p;
	if (c) {
		s->p++;
		if (c == '\n')
			s->line++;
	}
	return c;
}

/* Skip spaces, tabs and comments on the current line (a block comment may
 * run over lines); returns 0 at a newline or the end. */
static void sp_blank(struct spliced *s)
{
	for (;;) {
		char c = sp_peek(s, 0);
		if (c == ' ' || c == '\t' || c == '\r' || c == '\f' ||
		    c == '\v') {
			sp_next(s);
		} else if (c == '/' && sp_peek(s, 1) == '*') {
			sp_next(s);
			sp_next(s);
			while (sp_peek(s, 0) &&
			       !(sp_peek(s, 0) == '*' && sp_peek(s, 1) == '/'))
				sp_next(s);
			sp_next(s);
			sp_next(s);
		} else {
			return;
		}
	}
}

/* A #define or #undef seen before an #include that follows it. */
struct macro_before {
	long line;
	char undef;
	char name[40];
};

/* Why a macro may not change a header (red team, 2026-11-24: #undef of
 * libstdc++'s _GLIBCXX_END_NAMESPACE_VERSION, redefined as an asm
 * statement, then #include <numeric>: the asm came out at <numeric>'s
 * lines, and the origin check took it for the header's). */
#define MACRO_WHY OBJCHECK_MACRO_WHY

/* A character of a name as GCC reads it: letters, digits, _, $ and the
 * bytes of UTF-8 letters (red team, 2026-11-24: $R"( and \u00e9R"( are a
 * name and an ordinary string, not raw strings). */
static int name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '$' ||
	       (unsigned char)c >= 0x80;
}

/* Skip a header name, <...> or "..." (no comments, no escapes inside, as
 * GCC reads it after #include and in __has_include), if s is at one. */
static void header_name(struct spliced *s)
{
	sp_blank(s);
	char c = sp_peek(s, 0), close = c == '<' ? '>' : c == '"' ? '"' : 0;
	if (!close)
		return;
	sp_next(s);
	while (sp_peek(s, 0) && sp_peek(s, 0) != '\n' &&
	       sp_peek(s, 0) != close)
		sp_next(s);
	if (sp_peek(s, 0) == close)
		sp_next(s);
}

/* Skip a pp-number as C++17 lexes it (s at its first digit or a dot
 * before a digit): digits, letters, _, ., a ' before a letter, digit or _,
 * and a sign after e, E, p or P (1e-6f, 0x1p-3 are one token each). The
 * scan must read the text as GCC does, or a directive hides from it (red
 * team: 1'_'/ * read as a character, then a comment). */
static void pp_number(struct spliced *s)
{
	for (;;) {
		char c = sp_peek(s, 0), n = sp_peek(s, 1);
		if ((c == 'e' || c == 'E' || c == 'p' || c == 'P') &&
		    (n == '+' || n == '-')) {
			sp_next(s);
			sp_next(s);
		} else if (name_char(c) || c == '.' ||
			   (c == '\'' && name_char(n))) {
			sp_next(s);
		} else {
			return;
		}
	}
}

/* After "#define" or "#undef": the macro's name; for #define, whether the
 * macro may stand before an #include: object-like with an empty body or a
 * single pp-number (no identifier, string or operator that could become
 * code in the header). Leaves s inside the line. */
static int macro_harmless(struct spliced *s, int undef, char *name,
			  size_t len)
{
	sp_blank(s);
	size_t n = 0;
	while (isalnum((unsigned char)sp_peek(s, 0)) || sp_peek(s, 0) == '_') {
		char c = sp_next(s);
		if (n + 1 < len)
			name[n++] = c;
	}
	name[n] = 0;
	if (undef) { /* #undef NDEBUG, to have <cassert>'s checks: the one
		      * macro the C standard gives the user to switch a
		      * header (its host side calls __assert_fail only) */
		sp_blank(s);
		char c = sp_peek(s, 0);
		return !strcmp(name, "NDEBUG") &&
		       (!c || c == '\n' || (c == '/' && sp_peek(s, 1) == '/'));
	}
	if (!n)
		return 0;
	if (sp_peek(s, 0) == '(') { /* function-like: its line, one space
				     * for each run of blanks and comments */
		char def[512];
		size_t d = (size_t)snprintf(def, sizeof(def), "%s", name);
		for (;;) {
			char c = sp_peek(s, 0);
			if (c == ' ' || c == '\t' || (c == '/' &&
						      sp_peek(s, 1) == '*')) {
				sp_blank(s);
				c = ' ';
			} else if (!c || c == '\n' ||
				   (c == '/' && sp_peek(s, 1) == '/')) {
				break;
			} else {
				sp_next(s);
			}
			if (d + 1 >= sizeof(def))
				return 0;
			def[d++] = c;
		}
		def[d] = 0;
		return ppview_function_macro_harmless(def, def + d);
	}
	/* a body of numbers, parentheses and operators only, (1 << 20) or
	 * -1 (2026-11-27: since objcheck-19 no host-assembly rule goes by
	 * which file a line comes from, and such a body names nothing a
	 * header could be changed by) */
	for (;;) {
		sp_blank(s);
		char c = sp_peek(s, 0);
		if (isdigit((unsigned char)c) ||
		    (c == '.' && isdigit((unsigned char)sp_peek(s, 1))))
			pp_number(s);
		else if (c && strchr("()+-*%<>&|^~", c))
			sp_next(s);
		else if (c == '/' && sp_peek(s, 1) != '/' &&
			 sp_peek(s, 1) != '*')
			sp_next(s);
		else
			break;
	}
	char c = sp_peek(s, 0);
	return !c || c == '\n' || (c == '/' && sp_peek(s, 1) == '/');
}

/* What the directive scan keeps from line to line. */
struct directive_scan {
	const char *source_base;
	struct objcheck_list *out;
	int reported; /* problems found: the first four are told */
	struct macro_before pending[4]; /* not yet followed by an #include */
	int npending;
};

/* One directive, s just after its # (or %:, ??=), on line. */
static void directive(struct spliced *s, long line, struct directive_scan *d)
{
	sp_blank(s);
	char word[16] = "";
	size_t n = 0;
	while (n < sizeof(word) - 1 &&
	       (isalnum((unsigned char)sp_peek(s, 0)) || sp_peek(s, 0) == '_'))
		word[n++] = sp_next(s);
	word[n] = 0;
	int ended = !isalnum((unsigned char)sp_peek(s, 0)) &&
		    sp_peek(s, 0) != '_';
	int named = !strcmp(word, "line") && ended;
	if (ended && (!strcmp(word, "ident") || !strcmp(word, "sccs")) &&
	    d->reported++ < 4)
		problem(d->out, "%s:%ld: #%s: %s", d->source_base, line, word,
			IDENT_WHY);
	if ((named || isdigit((unsigned char)word[0])) && d->reported++ < 4)
		problem(d->out,
			"%s:%ld: " OBJCHECK_LINE_DIRECTIVE,
			d->source_base, line);
	int undef = !strcmp(word, "undef");
	if (ended && (undef || !strcmp(word, "define"))) {
		struct macro_before m = {line, (char)undef, ""};
		if (!macro_harmless(s, undef, m.name, sizeof(m.name)) &&
		    d->npending < 4)
			d->pending[d->npending++] = m;
	}
	if (ended && (!strcmp(word, "include") ||
		      !strcmp(word, "include_next") ||
		      !strcmp(word, "import"))) {
		header_name(s); /* #include <a/ *> opens no comment */
		for (int i = 0; i < d->npending; i++)
			if (d->reported++ < 4)
				problem(d->out,
					"%s:%ld: #%s %s before the #include "
					"of line %ld: %s",
					d->source_base, d->pending[i].line,
					d->pending[i].undef ? "undef"
							    : "define",
					d->pending[i].name, line, MACRO_WHY);
		d->npending = 0;
	}
}

void objcheck_line_directives(const char *text, const char *source_base,
			      struct objcheck_list *out)
{
	/* GCC drops a UTF-8 byte-order mark: line 1 starts after it */
	if (text && !strncmp(text, "\xEF\xBB\xBF", 3))
		text += 3;
	struct spliced s = {text, 1};
	struct directive_scan d = {source_base, out, 0, {{0}}, 0};
	/* bytes GCC and this scan could read differently (red team: a lone
	 * CR is a new line to GCC, so "x;\r#include" is a directive) */
	long at = 1;
	for (const char *q = text; q && *q; q++) {
		at += *q == '\n';
		if (*q == '\f' || *q == '\v' || (*q == '\r' && q[1] != '\n')) {
			problem(out, "%s:%ld: holds a %s: the compiler and the "
				     "checks could split its lines differently; "
				     "save it with plain newlines (LF or CRLF)",
				source_base, at,
				*q == '\f' ? "form feed"
				: *q == '\v' ? "vertical tab"
					     : "carriage return without a newline");
			d.reported++;
			break;
		}
	}
	while (text && sp_peek(&s, 0)) {
		/* the start of a line: is its first token # (or %:, ??=)? */
		sp_blank(&s);
		long line = s.line;
		char c = sp_peek(&s, 0);
		int hash = 0;
		if (c == '#' && sp_peek(&s, 1) != '#')
			hash = 1;
		else if (c == '%' && sp_peek(&s, 1) == ':')
			hash = 2;
		else if (c == '?' && sp_peek(&s, 1) == '?' &&
			 sp_peek(&s, 2) == '=')
			hash = 3;
		if (hash) {
			for (int i = 0; i < hash; i++)
				sp_next(&s);
			directive(&s, line, &d);
		}
		/* the rest of the line: literals and comments may hide a
		 * newline that is not the end of it */
		while ((c = sp_peek(&s, 0)) && c != '\n') {
			if (c == '/' && sp_peek(&s, 1) == '/') {
				while (sp_peek(&s, 0) && sp_peek(&s, 0) != '\n')
					sp_next(&s);
			} else if (c == '/' && sp_peek(&s, 1) == '*') {
				sp_blank(&s);
			} else if (c == '"' || c == '\'') {
				sp_next(&s);
				while (sp_peek(&s, 0) && sp_peek(&s, 0) != c &&
				       sp_peek(&s, 0) != '\n') {
					if (sp_peek(&s, 0) == '\\')
						sp_next(&s);
					sp_next(&s);
				}
				if (sp_peek(&s, 0) == c)
					sp_next(&s);
			} else if (c == 'R' && sp_peek(&s, 1) == '"') {
				/* a raw string: no splices, no escapes inside,
				 * but newlines (its lines are not directives) */
				sp_next(&s);
				sp_next(&s);
				const char *open = s.p;
				const char *paren = strchr(open, '(');
				if (!paren || paren - open > 16)
					continue;
				char delim[24];
				snprintf(delim, sizeof(delim), ")%.*s\"",
					 (int)(paren - open), open);
				const char *end = strstr(paren, delim);
				end = end ? end + strlen(delim)
					  : paren + strlen(paren);
				for (const char *q = s.p; q < end; q++)
					s.line += *q == '\n';
				s.p = end;
			} else if (isdigit((unsigned char)c)) {
				/* a pp-number: 1'000 and 1'_ are not
				 * characters */
				pp_number(&s);
			} else if (name_char(c) && !isdigit((unsigned char)c)) {
				char id[16] = "";
				size_t k = 0;
				while (name_char(sp_peek(&s, 0))) {
					/* u8R"(, uR"(, UR"(, LR"( open a raw
					 * string; xR"( is the name xR and an
					 * ordinary string (red team) */
					if (sp_peek(&s, 0) == 'R' &&
					    sp_peek(&s, 1) == '"' && k < 3 &&
					    (!strcmp(id, "u8") || !strcmp(id, "u") ||
					     !strcmp(id, "U") || !strcmp(id, "L")))
						break;
					char ch = sp_next(&s);
					if (k < sizeof(id) - 1)
						id[k++] = ch, id[k] = 0;
					else
						k = sizeof(id); /* long */
				}
				/* __has_include(<a/ *>): a header name */
				if (!strcmp(id, "__has_include") ||
				    !strcmp(id, "__has_include_next")) {
					sp_blank(&s);
					if (sp_peek(&s, 0) == '(') {
						sp_next(&s);
						header_name(&s);
					}
				}
			} else {
				sp_next(&s);
			}
		}
		sp_next(&s); /* the newline */
	}
}
