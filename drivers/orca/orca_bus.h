/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Orca HCA: the bus binding between a device instance and orca.ko.
 *
 * An Orca function is presented to the driver as an auxiliary device.  It
 * carries what a PCI function's config space and BARs would: the register
 * block, the number of interrupt vectors and their Linux IRQ numbers, and
 * the Ethernet netdev the function is wired to, and (since interface 1.4)
 * its device memory aperture.  DMA is performed on
 * behalf of the parent device of the auxiliary device, which therefore
 * provides the DMA ops.
 *
 * The only call the driver makes through this binding is notify(): it
 * follows every register write and carries the value written, as the
 * MMIO write itself would, and the device acts on those with a side
 * effect (control, doorbells).  Doorbell registers may be written from
 * any context, concurrently, so notify must not sleep and must not
 * re-read a doorbell register.  On silicon the MMIO write itself is the
 * notification and notify is NULL; a software implementation of the
 * device uses it to wake its engine.
 */
#ifndef ORCA_BUS_H
#define ORCA_BUS_H

#include <linux/auxiliary_bus.h>
#include <linux/netdevice.h>

#define ORCA_BUS_DEV_NAME	"hca"
#define ORCA_BUS_MAX_VECTORS	32

struct orca_bus_device;

struct orca_bus_ops {
	void (*notify)(struct orca_bus_device *bdev, u32 reg, u32 val);
};

struct orca_bus_device {
	struct auxiliary_device adev;
	void __iomem *regs;		/* ORCA_REG_BLOCK_SIZE bytes */
	unsigned int num_vectors;
	int irqs[ORCA_BUS_MAX_VECTORS];
	struct net_device *netdev;	/* held for the device's lifetime */
	/*
	 * Device memory (a prefetchable BAR on PCI): dm_size bytes at CPU
	 * physical address dm_phys, page aligned, or dm_size 0.  dm_ram:
	 * the aperture is system RAM (a software device), mapped cacheable;
	 * otherwise it is I/O memory, mapped write-combining.
	 */
	phys_addr_t dm_phys;
	size_t dm_size;
	bool dm_ram;
	const struct orca_bus_ops *ops;
	char ibdev_name[64];		/* requested ib_device name, or "" */
};

static inline struct orca_bus_device *
to_orca_bus_device(struct auxiliary_device *adev)
{
	return container_of(adev, struct orca_bus_device, adev);
}

#endif /* ORCA_BUS_H */
