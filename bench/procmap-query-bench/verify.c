// SPDX-License-Identifier: GPL-2.0
/*
 * procmap-query-bench, verify.c: the checks that every method gives the
 * same answers, build IDs included.
 */
#include "procmap-query-bench.h"

/* ---- verification ----------------------------------------------------- */

/* A VMA as the checks compare it, from the library or the reference. */
struct vma_view {
	uint64_t start;
	uint64_t end;
	uint64_t offset;
	uint64_t inode;
	uint32_t dev_major;
	uint32_t dev_minor;
	uint32_t flags;
	const char *name;
	const unsigned char *build_id;
	size_t build_id_size;
};

/* The VMA of address @i into *@v; false if the method found none. */
static bool answers__view(const struct answers *a, size_t i, struct vma_view *v)
{
	const struct stdio_vma *s;

	if (a->vmas) {
		const struct addrres_vma *l = a->vmas[i];

		if (!l)
			return false;
		*v = (struct vma_view){ .start = l->start, .end = l->end,
					.offset = l->offset, .inode = l->inode,
					.dev_major = l->dev_major,
					.dev_minor = l->dev_minor, .flags = l->flags,
					.name = l->name, .build_id = l->build_id,
					.build_id_size = l->build_id_size };
		return true;
	}
	if (a->stdio->vma_of[i] < 0)
		return false;
	s = &a->stdio->vmas[a->stdio->vma_of[i]];
	*v = (struct vma_view){ .start = s->start, .end = s->end,
				.offset = s->offset, .inode = s->inode,
				.dev_major = s->dev_major, .dev_minor = s->dev_minor,
				.flags = s->flags, .name = a->stdio->names + s->name_off };
	return true;
}

static void vma_view__print(const char *who, const struct vma_view *v)
{
	char perms[5];

	if (!v) {
		fprintf(stderr, "  %-8s (not mapped)\n", who);
		return;
	}
	flags__format(v->flags, perms);
	fprintf(stderr, "  %-8s %llx-%llx %s %llx %02x:%02x %llu '%s', %zu-byte build ID\n",
		who, (unsigned long long)v->start, (unsigned long long)v->end,
		perms, (unsigned long long)v->offset, v->dev_major, v->dev_minor,
		(unsigned long long)v->inode, v->name, v->build_id_size);
}

static bool vma_view__same(const struct vma_view *a, const struct vma_view *b)
{
	return a->start == b->start && a->end == b->end &&
	       a->offset == b->offset && a->inode == b->inode &&
	       a->dev_major == b->dev_major && a->dev_minor == b->dev_minor &&
	       a->flags == b->flags && !strcmp(a->name, b->name) &&
	       a->build_id_size == b->build_id_size &&
	       (!a->build_id_size || !memcmp(a->build_id, b->build_id, a->build_id_size));
}

/*
 * The device and inode a method reports for a file of the set.  They are
 * checked for consistency, not against fstat(): on overlayfs stat() and
 * the maps file may name different layers.
 */
struct file_identity {
	bool seen;
	uint64_t inode;
	uint32_t dev_major;
	uint32_t dev_minor;
};

/* Why @v is not the planned VMA @lv, or NULL if it is. */
static const char *layout_vma__mismatch(const struct layout_vma *lv,
					const struct vma_view *v,
					struct file_identity *ids)
{
	struct file_identity *id;

	if (v->start != lv->start || v->end != lv->end)
		return "range";
	if (v->offset != lv->offset)
		return "file offset";
	if (v->flags != lv->flags)
		return "permissions";
	if (strcmp(v->name, lv->name))
		return "name";
	if (lv->file < 0)
		return v->inode || v->dev_major || v->dev_minor ?
		       "a device or inode for an anonymous VMA" : NULL;
	if (!v->inode)
		return "no inode for a file's VMA";
	id = &ids[lv->file];
	if (!id->seen) {
		*id = (struct file_identity){ .seen = true, .inode = v->inode,
					      .dev_major = v->dev_major,
					      .dev_minor = v->dev_minor };
		return NULL;
	}
	return id->inode != v->inode || id->dev_major != v->dev_major ||
	       id->dev_minor != v->dev_minor ?
	       "not the device and inode of the file's other VMAs" : NULL;
}

/* Ground truth: the layout we created ourselves. */
int verify__layout(const struct layout *lo, const struct file_set *fs,
		   const uint64_t *addrs, size_t n, const struct answers *a)
{
	struct file_identity ids[NR_FILES] = { { 0 } };

	for (size_t i = 0; i < n; i++) {
		const struct layout_vma *lv = layout__lookup(lo, addrs[i]);
		bool want = lv && lv->kind != KIND_HOLE;
		struct vma_view got;
		bool found = answers__view(a, i, &got);
		const char *why;

		if (!want)
			why = found ? "a VMA in a hole" : NULL;
		else
			why = found ? layout_vma__mismatch(lv, &got, ids) : "no VMA";
		if (!why)
			continue;
		fprintf(stderr, "%s: wrong VMA for address %llx (%s):\n", a->who,
			(unsigned long long)addrs[i], why);
		if (want) {
			char perms[5];

			flags__format(lv->flags, perms);
			fprintf(stderr, "  expected %llx-%llx %s %llx '%s'\n",
				(unsigned long long)lv->start,
				(unsigned long long)lv->end, perms,
				(unsigned long long)lv->offset, lv->name);
		} else {
			fprintf(stderr, "  expected (not mapped)\n");
		}
		vma_view__print("got", found ? &got : NULL);
		return -EIO;
	}
	for (int f = 0; f < NR_FILES; f++) {
		for (int g = f + 1; g < NR_FILES; g++) {
			if (ids[f].seen && ids[g].seen && ids[f].inode == ids[g].inode &&
			    ids[f].dev_major == ids[g].dev_major &&
			    ids[f].dev_minor == ids[g].dev_minor) {
				fprintf(stderr, "%s: %s and %s have the same device and inode\n",
					a->who, fs->path[f], fs->path[g]);
				return -EIO;
			}
		}
	}
	return 0;
}

/* Every field of every address's VMA, build IDs included. */
int verify__same(const uint64_t *addrs, size_t n, const struct answers *a,
		 const struct answers *b)
{
	for (size_t i = 0; i < n; i++) {
		struct vma_view va, vb;
		bool in_a = answers__view(a, i, &va), in_b = answers__view(b, i, &vb);

		if (in_a == in_b && (!in_a || vma_view__same(&va, &vb)))
			continue;
		fprintf(stderr, "%s and %s disagree on address %llx:\n",
			a->who, b->who, (unsigned long long)addrs[i]);
		vma_view__print(a->who, in_a ? &va : NULL);
		vma_view__print(b->who, in_b ? &vb : NULL);
		return -EIO;
	}
	return 0;
}

/* The distinct planned VMAs that hold sorted @addrs (holes do not count). */
size_t layout__count_hit(const struct layout *lo, const uint64_t *addrs,
			 size_t n)
{
	const struct layout_vma *prev = NULL;
	size_t hit = 0;

	for (size_t i = 0; i < n; i++) {
		const struct layout_vma *lv = layout__lookup(lo, addrs[i]);

		if (!lv || lv->kind == KIND_HOLE)
			lv = NULL;
		else if (lv != prev)
			hit++;
		prev = lv;
	}
	return hit;
}

/* ---- build IDs -------------------------------------------------------- */

static size_t align_up(size_t v, size_t align)
{
	return (v + align - 1) / align * align;
}

/*
 * The GNU build ID among the @len bytes of notes at @notes, a PT_NOTE
 * segment of alignment @align (4, or 8 for GNU property notes).  A note is
 * a 12-byte header and its name, then its descriptor at the next multiple
 * of @align from the segment's start (itself so aligned), then the next
 * note at the next multiple after the descriptor: with 8, the descriptor
 * of "GNU" starts 16 bytes into its note, not 20.  Every size is checked
 * against what is left before use.
 */
static bool notes__find_build_id(const unsigned char *notes, size_t len,
				 size_t align, struct build_id *out)
{
	size_t off = 0;

	while (off < len && len - off >= sizeof(ElfW(Nhdr))) {
		size_t name_off = off + sizeof(ElfW(Nhdr)), desc_off;
		ElfW(Nhdr) nh;

		memcpy(&nh, notes + off, sizeof(nh));	/* no alignment assumed */
		if (nh.n_namesz > len - name_off)
			return false;
		desc_off = align_up(name_off + nh.n_namesz, align);
		if (desc_off > len || nh.n_descsz > len - desc_off)
			return false;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == sizeof("GNU") &&
		    !memcmp(notes + name_off, "GNU", sizeof("GNU")) &&
		    nh.n_descsz > 0 && nh.n_descsz <= sizeof(out->data)) {
			memcpy(out->data, notes + desc_off, nh.n_descsz);
			out->size = nh.n_descsz;
			return true;
		}
		off = align_up(desc_off + nh.n_descsz, align);
	}
	return false;
}

/* The main program comes first; its notes hold our build ID. */
int self_build_id__phdr(struct dl_phdr_info *info, size_t sz, void *data)
{
	(void)sz;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const unsigned char *notes;

		if (ph->p_type != PT_NOTE)
			continue;
		notes = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
		if (notes__find_build_id(notes, ph->p_memsz, ph->p_align == 8 ? 8 : 4,
					 data))
			break;
	}
	return 1;
}

/*
 * ELF copies must report our build ID, the data file none.  A missing ID
 * is counted, not fatal (the kernel reads it from the page cache only,
 * a library built without libelf finds none on its text path); a wrong
 * one is a bug.
 */
int verify__build_ids(const struct answers *a, size_t n,
		      const struct layout *lo,
		      const struct file_set *fs, const struct build_id *self,
		      size_t *found, size_t *expected)
{
	*found = *expected = 0;
	for (size_t i = 0; i < n; i++) {
		const struct addrres_vma *v = a->vmas[i];
		const struct layout_vma *lv;
		bool want;

		/* addresses of one VMA share its pointer: count it once */
		if (!v || (i && a->vmas[i - 1] == v))
			continue;
		lv = layout__lookup(lo, v->start);
		want = lv && lv->file >= 0 && fs->is_exe[lv->file] && self->size;
		*expected += want;
		if (!v->build_id_size && !v->build_id)
			continue;
		if (!want || !v->build_id || v->build_id_size != self->size ||
		    memcmp(v->build_id, self->data, self->size)) {
			fprintf(stderr, "%s: unexpected %zu-byte build ID for VMA %llx-%llx '%s'\n",
				a->who, v->build_id_size, (unsigned long long)v->start,
				(unsigned long long)v->end, v->name);
			return -EIO;
		}
		(*found)++;
	}
	return 0;
}
