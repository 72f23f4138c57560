package page

import "fmt"

// Page sizes. InnoDB's innodb_page_size may also be 32K or 64K, but
// ROW_FORMAT=COMPRESSED refuses them (14-bit offsets in the dense directory),
// so zipsim supports only the sizes that can be compressed.
const (
	MinPageSize     = 4096
	MaxPageSize     = 16384
	DefaultPageSize = 16384

	// MinZipSize is UNIV_ZIP_SIZE_MIN, KEY_BLOCK_SIZE=1.
	MinZipSize = 1024
)

// ZipSizes lists the compressed block sizes (KEY_BLOCK_SIZE 1, 2, 4, 8, 16).
var ZipSizes = [...]int{1024, 2048, 4096, 8192, 16384}

// CheckPageSize returns an error unless n is a logical page size zipsim
// supports: 4096, 8192 or 16384.
func CheckPageSize(n int) error {
	switch n {
	case 4096, 8192, 16384:
		return nil
	}
	return fmt.Errorf("page: page size %d is not supported: use 4096, 8192 or 16384 (InnoDB cannot compress 32K or 64K pages)", n)
}

// CheckZipSize returns an error unless zip is a compressed block size
// (1024..16384, a power of two) no larger than the logical page size, as
// InnoDB requires of KEY_BLOCK_SIZE.
func CheckZipSize(pageSize, zip int) error {
	if err := CheckPageSize(pageSize); err != nil {
		return err
	}
	switch zip {
	case 1024, 2048, 4096, 8192, 16384:
	default:
		return fmt.Errorf("page: zip size %d is not supported: use 1024, 2048, 4096, 8192 or 16384 (KEY_BLOCK_SIZE 1..16)", zip)
	}
	if zip > pageSize {
		return fmt.Errorf("page: zip size %d is larger than the page size %d; KEY_BLOCK_SIZE may not exceed innodb_page_size", zip, pageSize)
	}
	return nil
}

// ZipSSize returns page_zip_des_t::ssize for a zip size (1 for 1K .. 5 for
// 16K), or 0 for a size that is not a zip size.
func ZipSSize(zip int) int {
	for i, z := range ZipSizes {
		if z == zip {
			return i + 1
		}
	}
	return 0
}
