// SPDX-License-Identifier: GPL-2.0-only
/*
 * Orca HCA driver: bus binding, device bring-up and teardown.
 *
 * Bring-up follows the hardware interface: identify the device, make sure
 * it is disabled, hand it the admin and async event rings, enable it and
 * wait for READY, then learn its attributes with QUERY_DEVICE and
 * QUERY_PORT and register the ib_device.  Teardown runs the same steps
 * backwards.
 */

#include <linux/bitfield.h>
#include <linux/delay.h>
#include <linux/dma-map-ops.h>
#include <linux/interrupt.h>
#include <linux/iopoll.h>
#include <linux/module.h>

#include "orca.h"
#include "orca_ring.h"

/* The oldest interface minor version the driver works with. */
#define ORCA_DRV_MIN_MINOR	2

#define ORCA_READY_TIMEOUT_US	(5 * USEC_PER_SEC)

static_assert(sizeof_field(struct orca_bus_device, ibdev_name) ==
	      IB_DEVICE_NAME_MAX);

/*
 * Wait for READY (or FATAL) after an enable, or for STATUS to clear
 * completely after a disable: disabling also clears a FATAL state.
 */
static int orca_wait_status(struct orca_dev *dev, bool ready)
{
	u32 status;
	int ret;

	if (ready)
		ret = readl_poll_timeout(dev->regs + ORCA_REG_STATUS, status,
					 status & (ORCA_STATUS_READY |
						   ORCA_STATUS_FATAL),
					 1000, ORCA_READY_TIMEOUT_US);
	else
		ret = readl_poll_timeout(dev->regs + ORCA_REG_STATUS, status,
					 !(status & (ORCA_STATUS_READY |
						     ORCA_STATUS_FATAL)),
					 1000, ORCA_READY_TIMEOUT_US);
	if (!ret && (status & ORCA_STATUS_FATAL))
		ret = -EIO;
	if (ret)
		dev_err(orca_device(dev),
			"device did not become %s (status 0x%08x): %d\n",
			ready ? "ready" : "idle", status, ret);
	return ret;
}

static int orca_identify(struct orca_dev *dev)
{
	u32 id = orca_reg_read(dev, ORCA_REG_ID);
	u32 caps;

	if (id != ORCA_ID_MAGIC) {
		dev_err(orca_device(dev), "not an Orca device (id 0x%08x)\n",
			id);
		return -ENODEV;
	}
	dev->hw_version = orca_reg_read(dev, ORCA_REG_VERSION);
	/*
	 * 1.1 added the data-path doorbells (QP, CQ, completion EQ) that
	 * posting, polling and completion events are built on, and 1.2 the
	 * address vectors in UD WQEs that replaced the AH table: an older
	 * device would take queues that never make progress, or datagrams
	 * it cannot address.  What 1.3 and 1.4 added is used only where
	 * QUERY_DEVICE reports the capability.
	 */
	if (FIELD_GET(ORCA_VERSION_MAJOR, dev->hw_version) !=
	    ORCA_IFACE_VERSION_MAJOR ||
	    FIELD_GET(ORCA_VERSION_MINOR, dev->hw_version) <
	    ORCA_DRV_MIN_MINOR) {
		dev_err(orca_device(dev),
			"unsupported interface version %lu.%lu (need %u.%u or a later %u.x)\n",
			FIELD_GET(ORCA_VERSION_MAJOR, dev->hw_version),
			FIELD_GET(ORCA_VERSION_MINOR, dev->hw_version),
			ORCA_IFACE_VERSION_MAJOR, ORCA_DRV_MIN_MINOR,
			ORCA_IFACE_VERSION_MAJOR);
		return -ENODEV;
	}
	caps = orca_reg_read(dev, ORCA_REG_CAPS);
	dev->num_vectors = min_t(u32, FIELD_GET(ORCA_CAPS_NUM_VECTORS, caps),
				 dev->bdev->num_vectors);
	if (!dev->num_vectors) {
		dev_err(orca_device(dev), "device has no interrupt vectors\n");
		return -ENODEV;
	}
	if (FIELD_GET(ORCA_CAPS_AQ_MAX_LOG2, caps) < ORCA_AQ_LOG2_DEPTH ||
	    FIELD_GET(ORCA_CAPS_EQ_MAX_LOG2, caps) < ORCA_AEQ_LOG2_DEPTH) {
		dev_err(orca_device(dev), "device queues too small (caps 0x%08x)\n",
			caps);
		return -ENODEV;
	}
	return 0;
}

static int orca_hw_enable(struct orca_dev *dev)
{
	int ret;

	orca_admin_program(dev);
	orca_aeq_program(dev);
	orca_reg_write(dev, ORCA_REG_CTRL, ORCA_CTRL_ENABLE);
	ret = orca_wait_status(dev, true);
	if (ret)
		return ret;
	orca_aeq_arm(dev);
	return 0;
}

static int orca_hw_disable(struct orca_dev *dev)
{
	orca_reg_write(dev, ORCA_REG_CTRL, 0);
	return orca_wait_status(dev, false);
}

/*
 * Disable the device and release the IRQ and the rings it could write to.
 * A device that did not acknowledge the disable may still write to its
 * rings: they are leaked rather than freed under it.
 */
static void orca_hw_stop(struct orca_dev *dev)
{
	int ret = orca_hw_disable(dev);

	free_irq(dev->irq, dev);
	if (ret) {
		dev_warn(orca_device(dev),
			 "device did not stop; leaking its DMA rings\n");
		return;
	}
	orca_ceqs_free(dev, true);
	orca_zombies_release(dev);
	orca_aeq_destroy(dev);
	orca_admin_destroy(dev);
}

static void orca_events_enable(struct orca_dev *dev, bool enable)
{
	spin_lock_irq(&dev->state_lock);
	dev->events_enabled = enable;
	spin_unlock_irq(&dev->state_lock);
}

/* Not live any more, with port events off; whether it was live. */
static bool orca_end_live(struct orca_dev *dev)
{
	bool live;

	spin_lock_irq(&dev->state_lock);
	live = dev->live;
	dev->live = false;
	dev->events_enabled = false;
	spin_unlock_irq(&dev->state_lock);
	return live;
}

/*
 * ib_core calls this once the ib_device is unregistered, whoever asked:
 * orca_remove(), or a user's "rdma link delete" (IBK_ALLOW_USER_UNREG).
 * Every object is gone by then, users' included (their contexts were
 * disassociated after DEVICE_FATAL).  Stop the function; after a user's
 * request also ask the platform to remove it (CTRL.DETACH), which unbinds
 * the driver, orca_remove(), later and from another context.  The
 * ib_device itself is freed by orca_remove()'s last reference.
 */
static void orca_dealloc_driver(struct ib_device *ibdev)
{
	struct orca_dev *dev = to_odev(ibdev);

	if (!orca_end_live(dev))
		return;
	cancel_work_sync(&dev->port_work);
	cancel_work_sync(&dev->fatal_work);
	/* Every MR is gone: no fault is left to handle. */
	orca_odp_stop(dev);
	/*
	 * Port events dispatched before events stopped make ib_core update
	 * its cache from ib_wq, with QUERY_PORT: let that finish while the
	 * admin queue still exists.
	 */
	flush_workqueue(ib_wq);
	orca_ceqs_destroy(dev);
	orca_hw_stop(dev);
	if (!READ_ONCE(dev->removing)) {
		dev_info(orca_device(dev), "%s deleted; detaching the function\n",
			 dev_name(&ibdev->dev));
		orca_reg_write(dev, ORCA_REG_CTRL, ORCA_CTRL_DETACH);
	}
}

/*
 * ib_core calls this while registering, before anyone can find the device
 * to unregister it.  From here on "rdma link delete" may unregister it
 * under us: it stays allocated until orca_remove(), or the probe error
 * path, drops this reference.
 */
static int orca_enable_driver(struct ib_device *ibdev)
{
	struct orca_dev *dev = to_odev(ibdev);

	get_device(&ibdev->dev);
	spin_lock_irq(&dev->state_lock);
	dev->live = true;
	spin_unlock_irq(&dev->state_lock);
	return 0;
}

/* Registration failed after orca_enable_driver(): undo it. */
static void orca_enable_undo(struct orca_dev *dev)
{
	if (orca_end_live(dev))
		put_device(&dev->ibdev.dev);
}

/*
 * Port events flow to ib_core from now on, and a change made while
 * registering is caught up on, unless a user deleted the device already.
 */
static void orca_events_start(struct orca_dev *dev)
{
	spin_lock_irq(&dev->state_lock);
	if (dev->live) {
		dev->events_enabled = true;
		dev->port_resync = true;
		schedule_work(&dev->port_work);
	}
	spin_unlock_irq(&dev->state_lock);
}

static const struct ib_device_ops orca_lifetime_ops = {
	.dealloc_driver = orca_dealloc_driver,
	.enable_driver = orca_enable_driver,
};

/*
 * No ring of the interface holds more than 2^ORCA_RING_MAX_LOG2_DEPTH
 * entries: a device reporting larger queues is taken at that size, so
 * queue sizes and offsets stay within what the driver and its user
 * ABI can express.
 */
static void orca_clamp_ring_limits(struct orca_hw_device_attr *hw)
{
	__le32 *limits[] = { &hw->max_qp_wr, &hw->max_srq_wr, &hw->max_cqe };
	u32 max = orca_ring_depth(ORCA_RING_MAX_LOG2_DEPTH);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(limits); i++)
		if (le32_to_cpu(*limits[i]) > max)
			*limits[i] = cpu_to_le32(max);
}

static int orca_register(struct orca_dev *dev)
{
	struct orca_bus_device *bdev = dev->bdev;
	struct ib_device *ibdev = &dev->ibdev;
	struct ib_port_attr attr = {};
	struct orca_hw_port_attr hw;
	const char *name;
	int ret;

	ret = orca_cmd_query_device(dev, &dev->hw_attr);
	if (ret) {
		dev_err(orca_device(dev), "QUERY_DEVICE failed: %d\n", ret);
		return ret;
	}
	orca_clamp_ring_limits(&dev->hw_attr);
	if (le32_to_cpu(dev->hw_attr.num_ports) != 1) {
		dev_err(orca_device(dev), "unsupported port count %u\n",
			le32_to_cpu(dev->hw_attr.num_ports));
		return -ENODEV;
	}
	ret = orca_cmd_query_port(dev, ORCA_PORT_NUM, &hw);
	if (!ret)
		ret = orca_port_attr_to_ib(&hw, &attr);
	if (ret) {
		dev_err(orca_device(dev), "QUERY_PORT failed: %d\n", ret);
		return ret;
	}
	dev->port_state = attr.state;

	ibdev->node_type = RDMA_NODE_IB_CA;
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = max_t(unsigned int, dev->num_ceqs, 1);
	/*
	 * The kicks of a provider without the QP kick method (and
	 * liborca's with ORCA_KICK=post_send): POST_SEND and POST_RECV
	 * without WRs; and the CQ arm kick, REQ_NOTIFY_CQ.  ib_core leaves
	 * them out of the default mask.
	 */
	ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				  BIT_ULL(IB_USER_VERBS_CMD_POST_RECV) |
				  BIT_ULL(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ);
	ibdev->node_guid = dev->hw_attr.node_guid;
	ibdev->dev.parent = &bdev->adev.dev;
	strscpy(ibdev->node_desc, "Orca HCA", sizeof(ibdev->node_desc));
	ib_set_device_ops(ibdev, &orca_dev_ops);
	ib_set_device_ops(ibdev, &orca_lifetime_ops);
	/*
	 * The driver's uverbs methods and attributes: the QP kick
	 * (orca_wr.c), the mmap key of an ibv_alloc_dm(3) allocation and
	 * the context's answer to an import (orca_dm.c).
	 */
	ibdev->driver_def = orca_uapi_defs;

	ret = ib_device_set_netdev(ibdev, bdev->netdev, ORCA_PORT_NUM);
	if (ret)
		return ret;
	/* Before ib_core queries the device: its ODP capabilities. */
	ret = orca_odp_start(dev);
	if (ret)
		return ret;

	name = bdev->ibdev_name[0] ? bdev->ibdev_name : "orca%d";
	ret = ib_register_device(ibdev, name, dev->dmadev);
	if (ret)
		dev_err(orca_device(dev), "ib_register_device(%s) failed: %d\n",
			name, ret);
	return ret;
}

static int orca_probe(struct auxiliary_device *adev,
		      const struct auxiliary_device_id *id)
{
	struct orca_bus_device *bdev = to_orca_bus_device(adev);
	struct orca_dev *dev;
	int ret;

	if (!adev->dev.parent || !bdev->regs || !bdev->netdev)
		return -ENODEV;

	dev = ib_alloc_device(orca_dev, ibdev);
	if (!dev)
		return -ENOMEM;
	dev->bdev = bdev;
	dev->regs = bdev->regs;
	dev->dmadev = adev->dev.parent;
	spin_lock_init(&dev->state_lock);
	INIT_WORK(&dev->port_work, orca_port_work);
	INIT_WORK(&dev->fatal_work, orca_fatal_work);
	xa_init_flags(&dev->qp_xa, XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&dev->cq_xa, XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&dev->srq_xa, XA_FLAGS_LOCK_IRQ);
	mutex_init(&dev->zombie_lock);
	INIT_LIST_HEAD(&dev->zombies);
	INIT_LIST_HEAD(&dev->mr_zombies);
	orca_odp_dev_init(dev);
	auxiliary_set_drvdata(adev, dev);

	ret = orca_identify(dev);
	if (ret)
		goto err_dealloc;

	ret = dma_set_mask_and_coherent(dev->dmadev, DMA_BIT_MASK(64));
	if (ret) {
		dev_err(orca_device(dev), "no usable DMA mask: %d\n", ret);
		goto err_dealloc;
	}
	/*
	 * User rings are ordinary pages mapped both to the device and,
	 * cached, to userspace, which polls them with no sync calls: that
	 * needs a cache-coherent DMA device.
	 */
	if (!dev_is_dma_coherent(dev->dmadev)) {
		dev_err(orca_device(dev), "DMA is not cache-coherent\n");
		ret = -ENODEV;
		goto err_dealloc;
	}

	/* A previous driver instance may have left the device enabled. */
	ret = orca_hw_disable(dev);
	if (ret)
		goto err_dealloc;

	ret = orca_admin_init(dev);
	if (ret)
		goto err_dealloc;
	ret = orca_aeq_init(dev);
	if (ret)
		goto err_admin_destroy;

	dev->irq = bdev->irqs[0];
	ret = request_irq(dev->irq, orca_async_irq_handler, 0,
			  dev_name(&adev->dev), dev);
	if (ret) {
		dev_err(orca_device(dev), "request_irq(%d) failed: %d\n",
			dev->irq, ret);
		goto err_aeq_destroy;
	}

	ret = orca_hw_enable(dev);
	if (ret)
		goto err_hw_stop;

	ret = orca_ceqs_create(dev);
	if (ret)
		goto err_hw_stop;

	ret = orca_register(dev);
	if (ret)
		goto err_ceqs_destroy;
	/*
	 * Port events go to ib_core only while the device is registered:
	 * ib_dispatch_event() queues work that uses the port data and the
	 * cache ib_register_device() sets up.
	 */
	orca_events_start(dev);

	dev_info(orca_device(dev), "registered %s on %s, interface %lu.%lu\n",
		 dev_name(&dev->ibdev.dev), netdev_name(bdev->netdev),
		 FIELD_GET(ORCA_VERSION_MAJOR, dev->hw_version),
		 FIELD_GET(ORCA_VERSION_MINOR, dev->hw_version));
	return 0;

err_ceqs_destroy:
	orca_enable_undo(dev);
	orca_odp_stop(dev);
	orca_ceqs_destroy(dev);
err_hw_stop:
	/* Frees the IRQ and, if the device stopped, the rings. */
	orca_hw_stop(dev);
	cancel_work_sync(&dev->fatal_work);
	ib_dealloc_device(&dev->ibdev);
	return ret;

err_aeq_destroy:
	orca_aeq_destroy(dev);
err_admin_destroy:
	orca_admin_destroy(dev);
	cancel_work_sync(&dev->fatal_work);
err_dealloc:
	ib_dealloc_device(&dev->ibdev);
	return ret;
}

static void orca_remove(struct auxiliary_device *adev)
{
	struct orca_dev *dev = auxiliary_get_drvdata(adev);

	WRITE_ONCE(dev->removing, true);
	/*
	 * No port event may reach ib_core once unregistration is under way:
	 * its work would run after ib_unregister_device() flushed ib_wq,
	 * against a device that is about to be freed.
	 */
	orca_events_enable(dev, false);
	cancel_work_sync(&dev->port_work);
	cancel_work_sync(&dev->fatal_work);
	/*
	 * Stops the function through orca_dealloc_driver(), unless a user's
	 * "rdma link delete" already did.  Events a user-requested
	 * unregistration let through may still be queued on ib_wq.
	 */
	ib_unregister_device(&dev->ibdev);
	flush_workqueue(ib_wq);
	put_device(&dev->ibdev.dev);
}

static const struct auxiliary_device_id orca_id_table[] = {
	{ .name = "orca_soft." ORCA_BUS_DEV_NAME },
	{}
};
MODULE_DEVICE_TABLE(auxiliary, orca_id_table);

static struct auxiliary_driver orca_driver = {
	.name = "orca",
	.probe = orca_probe,
	.remove = orca_remove,
	.id_table = orca_id_table,
};
module_auxiliary_driver(orca_driver);

MODULE_DESCRIPTION("Orca RDMA host channel adapter driver");
MODULE_LICENSE("GPL");
