/* objcheck — see objcheck.h for the rules. One read of the object into
 * memory, every offset checked against its size before use. */
#include "objcheck.h"
#include "objcheck_private.h"
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
	"cudaFuncSetSharedMemConfig", /* deprecated, per kernel, harmless */
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
	/* a variadic logging helper's (2026-11-27) */
	"vfprintf", "vsnprintf", "vsprintf", "__vfprintf_chk",
	"__vprintf_chk", "__vsnprintf_chk", "__vsprintf_chk",
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

int objcheck_library_namespace(const char *s, size_t len)
{
	if (len == 3 && !strncmp(s, "std", 3))
		return 1;
	for (const char *const *ns = library_namespaces; *ns; ns++) {
		const char *name = *ns;
		while (isdigit((unsigned char)*name))
			name++; /* the mangled length */
		if (strlen(name) == len && !strncmp(s, name, len))
			return 1;
	}
	return 0;
}

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

void objcheck_add(struct objcheck_list *out, const char *fmt, ...)
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

static int elf_open_as(struct elf *e, const char *path, int linked,
		       char *err, size_t errlen);

/* A relocatable object and its symbol table. */
static int elf_open(struct elf *e, const char *path, char *err, size_t errlen)
{
	return elf_open_as(e, path, 0, err, errlen);
}

/* linked: an executable or shared object (ET_EXEC, ET_DYN) and its dynamic
 * symbol table instead. */
static int elf_open_as(struct elf *e, const char *path, int linked,
		       char *err, size_t errlen)
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
	    e->eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    (linked ? e->eh->e_type != ET_EXEC && e->eh->e_type != ET_DYN
		    : e->eh->e_type != ET_REL) ||
	    e->eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    !in_file(e, e->eh->e_shoff,
		     (size_t)e->eh->e_shnum * sizeof(Elf64_Shdr)) ||
	    e->eh->e_shoff % 8 || e->eh->e_shstrndx >= e->eh->e_shnum) {
		snprintf(err, errlen, "%s is not an ELF64 %s", path,
			 linked ? "program" : "relocatable object");
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
		if (e->sh[i].sh_type != (linked ? SHT_DYNSYM : SHT_SYMTAB))
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
	if (!e->sym && !linked) {
		snprintf(err, errlen, "%s has no readable symbol table", path);
		free(e->data);
		return -1;
	}
	return 0; /* a static program may have no dynamic symbols */
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
			objcheck_add(out,
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
			objcheck_add(out,
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
		if (!strcmp(n, "DW.ref.__gxx_personality_v0") &&
		    bind == STB_WEAK)
			continue;
		/* the launcher is called by the harness: a function whose
		 * code is in an executable section, not bytes of data under
		 * its name (which would only crash, but is no launcher) */
		if (in_list(r->launchers, n)) {
			if (ELF64_ST_TYPE(s->st_info) != STT_FUNC ||
			    s->st_shndx >= e->nsec ||
			    !(e->sh[s->st_shndx].sh_flags & SHF_EXECINSTR))
				objcheck_add(out,
					"defines the launcher %s as something "
					"other than a function (a variable or "
					"an array under its name): write it as "
					"the starter declares it", n);
			continue;
		}
		int mangled = !strncmp(n, "_Z", 2);
		/* a static local of an inline function and its guard
		 * (_ZZ..., _ZGVZ...: weak, data only) are the file's own */
		int local_static = !strncmp(n, "_ZGVZ", 5) ||
				   !strncmp(n, "_ZZ", 3);
		int reserved = in_list(r->harness_symbols, n) ||
			       (mangled && !local_static &&
				objcheck_library_name(n));
		if (!reserved && !mangled && in_list(r->kernels, n)) {
			objcheck_add(out,
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
		 * std::to_string, operator+): weak, in a COMDAT group (as the
		 * compiler puts every such copy; a student's own weak
		 * definition of __cxxabiv1::...::__do_catch is not), named
		 * nowhere in the judge's objects, and made hidden before the
		 * link (objcheck_hide_definitions), so only the student's own
		 * code can reach it */
		if (bind == STB_WEAK && mangled &&
		    !in_list(r->harness_symbols, n) &&
		    objcheck_library_name(n) && s->st_shndx < e->nsec &&
		    (e->sh[s->st_shndx].sh_flags & SHF_GROUP))
			continue;
		const char *launcher = r->launchers && r->launchers[0]
					       ? r->launchers[0]
					       : "the launcher";
		if (ELF64_ST_TYPE(s->st_info) == STT_OBJECT && !mangled)
			objcheck_add(out,
				"defines the global variable %s: a kernel file "
				"may define only its kernels and the launcher "
				"(%s); a variable of that name would replace "
				"the harness's or a library's own (declare it "
				"static, or static const)",
				n, launcher);
		else
			objcheck_add(out,
				"defines the global symbol %s: a kernel file "
				"may define only its kernels and the launcher "
				"(%s); it would replace the harness's or a "
				"library's own %s (make helpers static)",
				n, launcher,
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
		objcheck_add(out,
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
			: !strncmp(n, "cudaMemcpy", 10)
				? "the harness moves data between host and "
				  "device; a kernel file writes its results "
				  "with its kernels"
			: !strncmp(n, "cudaDeviceSet", 13)
				? "device-wide settings outlive the call; set a "
				  "kernel's own with cudaFuncSetCacheConfig or "
				  "cudaFuncSetAttribute"
			: !strncmp(n, "__cxa_atexit", 12) ||
					!strcmp(n, "__dso_handle")
				? "an object with a destructor kept in a global "
				  "or a static (a function-local static "
				  "std::vector, say) is destroyed at exit, which "
				  "only the harness may arrange: keep plain "
				  "values there, or make the object local"
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
/* The host wrapper of a kernel template instantiated with a __device__
 * lambda (nvcc --extended-lambda): its name holds nvcc's wrapper type
 * (__nv_dl_wrapper_t, or __nv_hdl_wrapper_t for a __host__ __device__
 * lambda) where the PTX entry holds the lambda's closure type
 * (_Z14for_each_indexI17__nv_dl_wrapper_t... against
 * _Z14for_each_indexIZ5saxpyEUliE_EviT_), so it is matched by the
 * template's name: the same _Z<length><name>I as one of the kernels. */
static int lambda_kernel_wrapper(const char *n, const char *const *kernels)
{
	if (strncmp(n, "_Z", 2) || !isdigit((unsigned char)n[2]) ||
	    (!strstr(n, "17__nv_dl_wrapper_t") &&
	     !strstr(n, "18__nv_hdl_wrapper_t")))
		return 0;
	char *after = NULL;
	unsigned long len = strtoul(n + 2, &after, 10);
	if (!after || len == 0 || strlen(after) <= len || after[len] != 'I')
		return 0;
	size_t prefix = (size_t)(after - n) + len + 1; /* through the I */
	for (const char *const *k = kernels; k && *k; k++)
		if (!strncmp(*k, n, prefix))
			return 1;
	return 0;
}

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
	/* a lambda's closure type has internal linkage, and so has every
	 * instantiation with it */
	return ELF64_ST_BIND(f->st_info) == STB_LOCAL &&
	       lambda_kernel_wrapper(plain, r->kernels);
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
		objcheck_add(out,
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
			objcheck_add(out, "a relocation table that cannot be read");
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
					objcheck_add(out,
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
				objcheck_add(out,
					"calls %s from %s: only nvcc's own "
					"registration code may (atexit and "
					"module registration run code outside "
					"the harness's order)",
					sym_name(e, s), f ? fn : tname);
		}
	}
	if (init_entries > 1)
		objcheck_add(out, "has %d static initialisers: only nvcc's own "
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
			objcheck_add(out,
				"has the label %s in the executable section %s "
				"that is no function: code written as assembler "
				"text is not allowed in a kernel file",
				sym_name(e, s), sec_name(e, s->st_shndx));
			continue;
		}
		objcheck_add(out,
			"holds data (%s) in the executable section %s: data that "
			"runs as machine code is host assembly in disguise",
			sym_name(e, s), sec_name(e, s->st_shndx));
	}
	for (size_t i = 0; i < e->nsec; i++) {
		const char *n = sec_name(e, i);
		if ((e->sh[i].sh_flags & SHF_EXECINSTR) && strcmp(n, ".text") &&
		    strncmp(n, ".text.", 6)) {
			objcheck_add(out,
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
			objcheck_add(out,
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
		objcheck_add(out,
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

int objcheck_hide_definitions(const char *path, char *err, size_t errlen)
{
	struct elf e;
	if (elf_open(&e, path, err, errlen) < 0)
		return -1;
	int hidden = 0;
	for (size_t i = 1; i < e.nsym; i++) {
		Elf64_Sym *s = (Elf64_Sym *)&e.sym[i];
		if (s->st_shndx == SHN_UNDEF || !s->st_name ||
		    ELF64_ST_BIND(s->st_info) == STB_LOCAL ||
		    ELF64_ST_VISIBILITY(s->st_other) == STV_HIDDEN)
			continue;
		s->st_other = (unsigned char)((s->st_other & ~0x3) |
					      STV_HIDDEN);
		hidden++;
	}
	int rc = hidden ? elf_write(&e, path, err, errlen) : 0;
	elf_close(&e);
	return rc;
}

int objcheck_exported(const char *exe, const char *obj, char *err,
		      size_t errlen)
{
	struct elf x, o;
	if (elf_open_as(&x, exe, 1, err, errlen) < 0)
		return -1;
	if (elf_open(&o, obj, err, errlen) < 0) {
		elf_close(&x);
		return -1;
	}
	int found = 0;
	for (size_t i = 1; i < x.nsym; i++) {
		const Elf64_Sym *d = &x.sym[i];
		if (d->st_shndx == SHN_UNDEF || !d->st_name)
			continue;
		const char *n = sym_name(&x, d);
		for (size_t k = 1; k < o.nsym; k++) {
			const Elf64_Sym *s = &o.sym[k];
			if (s->st_shndx == SHN_UNDEF || !s->st_name ||
			    ELF64_ST_BIND(s->st_info) == STB_LOCAL ||
			    strcmp(sym_name(&o, s), n))
				continue;
			if (!found++)
				snprintf(err, errlen,
					 "%s exports %s, which the student's "
					 "object defines", exe, n);
			break;
		}
	}
	elf_close(&o);
	elf_close(&x);
	return found;
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
